import TollgateCore

extension GooglePlayMapping {
  /// Maps a `purchases.products.get` resource of `purchaseToken` for `productId`, read at
  /// `asOfMs`.
  ///
  /// A purchased (not pending, not canceled) one-time product grants for life until it is voided:
  /// one period from `purchaseTimeMillis` that never expires (`expiresDateMs` is `Int64.max`, as
  /// for Apple's non-consumables). A test purchase (`purchaseType` 0) is in the sandbox.
  public init(
    product resource: ProductPurchase, purchaseToken: String, productId: String, packageName: String, asOfMs: Int64
  ) {
    var notes: [GooglePlayMappingNote] = []
    var transactions: [StoreTransaction] = []
    if resource.typedPurchaseState != .purchased {
      notes.append(.productNotPurchased(purchaseState: resource.purchaseState.map(String.init)))
    } else if let purchased = resource.purchaseTimeMillis {
      transactions.append(
        StoreTransaction(
          transactionId: resource.orderId ?? purchaseToken, productId: resource.productId ?? productId,
          purchaseDateMs: purchased, expiresDateMs: Int64.max))
    } else {
      notes.append(.productWithoutPurchaseTime)
    }
    let history = SubscriptionHistory(
      store: .googlePlay, purchaseId: purchaseToken,
      environment: resource.typedPurchaseType == .test ? .sandbox : .production, transactions: transactions,
      renewalInfo: RenewalInfo(willAutoRenew: false, isAcknowledged: resource.isAcknowledged), asOfMs: asOfMs)
    self.init(
      packageName: packageName, history: history, obfuscatedExternalAccountId: resource.obfuscatedExternalAccountId,
      notes: notes)
  }

  /// Maps a `purchases.productsv2` resource of `purchaseToken`, read at `asOfMs`: one lifelong
  /// period per purchased line item (see `init(product:…)`). A rental's end is not in the
  /// resource, so a rental grants nothing here.
  public init(productV2 resource: ProductPurchaseV2, purchaseToken: String, packageName: String, asOfMs: Int64) {
    var notes: [GooglePlayMappingNote] = []
    var transactions: [StoreTransaction] = []
    let items = resource.productLineItem ?? []
    if resource.$productLineItem.droppedCount > 0 {
      notes.append(.undecodableLineItems(count: resource.$productLineItem.droppedCount))
    }
    if resource.purchaseStateContext?.typedPurchaseState != .purchased {
      notes.append(.productNotPurchased(purchaseState: resource.purchaseStateContext?.purchaseState))
    } else if let purchased = resource.purchaseCompletionTime {
      let orderId = resource.orderId
      for item in items {
        guard let productId = item.productId else {
          notes.append(.lineItemWithoutProductId)
          continue
        }
        if item.productOfferDetails?.rentOfferDetails != nil {
          notes.append(.rentalWithoutExpiry(productId: productId))
          continue
        }
        let transactionId =
          switch orderId {
          case let id? where items.count == 1: id
          case let id?: "\(id)|\(productId)"
          case nil: "\(purchaseToken)|\(productId)"
          }
        transactions.append(
          StoreTransaction(
            transactionId: transactionId, productId: productId, purchaseDateMs: purchased, expiresDateMs: Int64.max))
      }
    } else {
      notes.append(.productWithoutPurchaseTime)
    }
    let history = SubscriptionHistory(
      store: .googlePlay, purchaseId: purchaseToken, environment: resource.isTestPurchase ? .sandbox : .production,
      transactions: transactions,
      renewalInfo: RenewalInfo(
        willAutoRenew: false, isAcknowledged: resource.typedAcknowledgementState.flatMap(\.isAcknowledged)),
      asOfMs: asOfMs)
    self.init(
      packageName: packageName, history: history, obfuscatedExternalAccountId: resource.obfuscatedExternalAccountId,
      notes: notes)
  }
}
