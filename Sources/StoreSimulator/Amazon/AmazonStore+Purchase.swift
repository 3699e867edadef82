/// Purchases: a subscription's first receipt (optionally a free trial), an entitlement, a
/// consumable.
extension AmazonStore {
  mutating func purchase(_ request: AmazonPurchaseRequest, core: inout SimCore) throws(StoreSimulatorError)
    -> AmazonPurchaseResult
  {
    let app = try app(request.appPackageName)
    let userId = request.userId ?? Self.newUserId()
    guard !userId.isEmpty else { throw .invalid("userId must not be empty") }
    let sandbox = request.sandbox ?? false
    let beta = request.betaProduct ?? false
    let receipt: AmazonReceipt
    if let product = config.subscription(termSku: request.sku) {
      var trialMs: Int64?
      if request.freeTrial == true {
        guard let trial = product.freeTrialMs, trial > 0 else {
          throw .invalid("\(product.termSku) has no free trial")
        }
        trialMs = trial
      }
      let receiptId = Self.newReceiptId(.subscription, core: &core)
      let endMs = core.nowMs + (trialMs ?? product.periodMs)
      receipt = AmazonReceipt(
        receiptId: receiptId, appPackageName: app.appPackageName, userId: userId, productType: .subscription,
        productId: product.termSku, parentProductId: product.parentProductId, term: product.term,
        termSku: product.termSku, purchaseDateMs: core.nowMs, renewalDateMs: endMs, autoRenewing: true,
        freeTrialEndDateMs: trialMs.map { _ in endMs }, testTransaction: sandbox, betaProduct: beta, quantity: 1,
        subscriptionId: receiptId)
      var subscription = AmazonSubscription(
        subscriptionId: receiptId, appPackageName: app.appPackageName, userId: userId, termSku: product.termSku,
        testTransaction: sandbox, betaProduct: beta, receiptIds: [receiptId], termEndMs: endMs)
      scheduleTermEnd(&subscription, core: &core)
      save(subscription)
      save(receipt)
      notify(.subscriptionPurchased, receipt, core: &core)
    } else {
      let type: AmazonProductType
      if config.entitlements.contains(request.sku) {
        type = .entitled
      } else if config.consumables.contains(request.sku) {
        type = .consumable
      } else {
        throw .invalid("no Amazon product \(request.sku) is configured")
      }
      receipt = AmazonReceipt(
        receiptId: Self.newReceiptId(type, core: &core), appPackageName: app.appPackageName, userId: userId,
        productType: type, productId: request.sku, purchaseDateMs: core.nowMs, autoRenewing: false,
        testTransaction: sandbox, betaProduct: beta, quantity: 1)
      save(receipt)
      notify(type == .entitled ? .entitlementPurchased : .consumablePurchased, receipt, core: &core)
    }
    return AmazonPurchaseResult(
      receiptId: receipt.receiptId, userId: userId, appPackageName: app.appPackageName,
      productType: receipt.productType, productId: receipt.productId, parentProductId: receipt.parentProductId,
      purchaseDateMs: receipt.purchaseDateMs, renewalDateMs: receipt.renewalDateMs, testTransaction: sandbox)
  }

  /// A cancellation now (`cancelDate` = now): a customer-service refund (`cancelReason` 1, the
  /// default), or Amazon's system (2) or another reason (0). Ends a subscription at once.
  mutating func cancel(_ receiptId: String, reason: Int, core: inout SimCore) throws(StoreSimulatorError) {
    var receipt = try receipt(receiptId)
    guard [0, 1, 2].contains(reason) else { throw .invalid("cancelReason must be 0, 1 or 2") }
    if receipt.productType == .subscription {
      var subscription = try subscription(of: receiptId)
      guard subscription.state != .ended else { throw .conflict("the subscription is already over") }
      end(&subscription, atMs: core.nowMs, reason: reason, notification: .subscriptionCancelled, core: &core)
      return
    }
    guard receipt.cancelDateMs == nil else { throw .conflict("the purchase is already cancelled") }
    receipt.cancelDateMs = core.nowMs
    receipt.cancelReason = reason
    receipt.endedAtMs = core.nowMs
    save(receipt)
    notify(receipt.productType == .entitled ? .entitlementCancelled : .consumableCancelled, receipt, core: &core)
  }
}
