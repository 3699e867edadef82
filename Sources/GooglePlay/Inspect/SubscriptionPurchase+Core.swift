import TollgateCore

extension SubscriptionPurchase {
  /// The `subscriptionState` subscriptionsv2 would report for this v1 resource at `atMs`, read
  /// the way Google's v1 lifecycle guide reads its fields (v1 has no state field): a pending
  /// payment on an auto-renewing subscription is grace before the expiry and account hold after
  /// it; an ended subscription with an auto-resume time is paused; an ended one otherwise expired;
  /// a current one that will not renew canceled. `nil` without an expiry.
  public func derivedState(atMs: Int64) -> GooglePlaySubscriptionState? {
    guard let expiry = expiryTimeMillis else { return nil }
    let current = atMs < expiry
    if typedPaymentState == .pending, autoRenewing == true { return current ? .inGracePeriod : .onHold }
    if !current { return (autoResumeTimeMillis.map { $0 > atMs } ?? false) ? .paused : .expired }
    if cancelReason != nil || autoRenewing != true { return .canceled }
    return .active
  }

  /// The resource as Core's history of `purchaseToken` at `atMs`: one period from
  /// `startTimeMillis` to `expiryTimeMillis` (a free trial while `paymentState` is 2), none
  /// without an expiry. The resource does not name its product, so the period's is
  /// `productId`.
  public func history(purchaseToken: String, productId: String = "", atMs: Int64) -> SubscriptionHistory {
    let state = derivedState(atMs: atMs)
    var transactions: [StoreTransaction] = []
    if let expiry = expiryTimeMillis {
      let freeTrial = typedPaymentState == .freeTrial
      transactions.append(
        StoreTransaction(
          transactionId: orderId ?? purchaseToken, productId: productId,
          purchaseDateMs: startTimeMillis ?? min(atMs, expiry), expiresDateMs: expiry,
          offerType: freeTrial ? .introductory : nil, offerDiscountType: freeTrial ? .freeTrial : nil))
    }
    let renewal = RenewalInfo(
      willAutoRenew: autoRenewing ?? false,
      expirationIntent: typedCancelReason.map(ExpirationIntent.init(googlePlayV1:)),
      gracePeriodExpiresDateMs: state == .inGracePeriod ? expiryTimeMillis : nil,
      googlePlayState: state,
      autoResumeTimeMs: autoResumeTimeMillis,
      isAcknowledged: isAcknowledged)
    return SubscriptionHistory(
      store: .googlePlay, purchaseId: purchaseToken, environment: isTestPurchase ? .sandbox : .production,
      transactions: transactions, renewalInfo: renewal, linkedPurchaseToken: linkedPurchaseToken, asOfMs: atMs)
  }
}

extension ExpirationIntent {
  /// v1 `cancelReason`.
  init(googlePlayV1 reason: SubscriptionCancelReason) {
    switch reason {
    case .userCanceled: self = .customerCanceled
    case .systemCanceled: self = .billingError
    case .replaced: self = .replaced
    case .developerCanceled: self = .other
    }
  }
}
