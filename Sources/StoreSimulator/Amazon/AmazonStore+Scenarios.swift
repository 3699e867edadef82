/// What a customer (or Amazon) does to a subscription: auto-renew off/on, failing and
/// recovering payments, tier changes.
extension AmazonStore {
  mutating func setAutoRenew(_ receiptId: String, enabled: Bool, core: inout SimCore) throws(StoreSimulatorError) {
    var subscription = try subscription(of: receiptId)
    guard subscription.state != .ended else { throw .conflict("the subscription is over") }
    guard subscription.autoRenewing != enabled else { return }
    subscription.autoRenewing = enabled
    save(subscription)
    let receipt = mutateCurrent(subscription) { $0.autoRenewing = enabled }
    notify(enabled ? .subscriptionAutoRenewalOn : .subscriptionAutoRenewalOff, receipt, core: &core)
  }

  /// Every renewal payment fails from now on (until `recoverPayment`).
  mutating func failRenewals(_ receiptId: String) throws(StoreSimulatorError) {
    var subscription = try subscription(of: receiptId)
    guard subscription.state != .ended else { throw .conflict("the subscription is over") }
    subscription.failRenewals = true
    save(subscription)
  }

  /// Payments succeed again; in grace the subscription renews at once from its term end (no
  /// days lost), in billing retry a new term starts now.
  mutating func recoverPayment(_ receiptId: String, core: inout SimCore) throws(StoreSimulatorError) {
    var subscription = try subscription(of: receiptId)
    subscription.failRenewals = false
    switch subscription.state {
    case .inGracePeriod: renew(&subscription, fromMs: subscription.termEndMs, core: &core)
    case .billingRetry: renew(&subscription, fromMs: core.nowMs, core: &core)
    case .active, .ended: break
    }
    save(subscription)
  }

  /// A tier change. Immediate: the current receipt is cancelled now (`cancelReason` 4) and a new
  /// receipt for `termSku` starts now (`SUBSCRIPTION_MODIFIED_IMMEDIATE`, the cancelled receipt
  /// in `relatedReceipts.cancelledReceiptId`). Deferred: the current receipt shows `deferredSku`
  /// and `deferredDate` (its term end), and the next renewal moves to it
  /// (`SUBSCRIPTION_MODIFIED_DEFERRED`, empty `relatedReceipts`).
  mutating func changeTier(_ receiptId: String, to sku: String, immediate: Bool, core: inout SimCore)
    throws(StoreSimulatorError)
  {
    var subscription = try subscription(of: receiptId)
    guard subscription.state == .active || subscription.state == .inGracePeriod else {
      throw .conflict("the subscription is not active")
    }
    guard let product = config.subscription(termSku: sku) else { throw .invalid("no Amazon subscription \(sku)") }
    guard product.termSku != subscription.termSku else { throw .conflict("the subscription is already \(sku)") }
    guard immediate else {
      subscription.deferredSku = product.termSku
      save(subscription)
      let receipt = mutateCurrent(subscription) {
        $0.deferredSku = product.termSku
        $0.deferredDateMs = subscription.termEndMs
      }
      notify(.subscriptionModifiedDeferred, receipt, core: &core)
      return
    }
    let old = mutateCurrent(subscription) {
      $0.cancelDateMs = core.nowMs
      $0.cancelReason = 4
      $0.autoRenewing = false
      $0.endedAtMs = core.nowMs
    }
    let endMs = core.nowMs + product.periodMs
    let receipt = newTerm(
      subscription, product: product, sku: product.termSku, fromMs: core.nowMs, endMs: endMs, core: &core)
    save(receipt)
    subscription.receiptIds.append(receipt.receiptId)
    subscription.termSku = product.termSku
    subscription.deferredSku = nil
    subscription.termEndMs = endMs
    subscription.state = .active
    subscription.graceEndMs = nil
    scheduleTermEnd(&subscription, core: &core)
    save(subscription)
    notify(.subscriptionModifiedImmediate, receipt, related: ["cancelledReceiptId": old.receiptId], core: &core)
  }
}
