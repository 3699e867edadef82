import TollgateCore

extension StoreTransaction {
  /// Maps a legacy `in_app` / `latest_receipt_info` entry; `nil` without transaction id,
  /// product id or purchase date. No `expires_date` means it never expires (`Int64.max`).
  public init?(appStoreLegacy purchase: LegacyInAppPurchase) {
    guard let transactionId = purchase.transactionId, let productId = purchase.productId,
      let purchaseDate = purchase.purchaseDateMs
    else { return nil }
    let offerType: OfferType? =
      purchase.isTrialPeriod == true || purchase.isInIntroOfferPeriod == true
      ? .introductory
      : purchase.offerCodeRefName != nil ? .offerCode : purchase.promotionalOfferId != nil ? .promotional : nil
    self.init(
      transactionId: transactionId,
      productId: productId,
      purchaseDateMs: purchaseDate,
      expiresDateMs: purchase.expiresDateMs ?? Int64.max,
      offerType: offerType,
      offerDiscountType: purchase.isTrialPeriod == true ? .freeTrial : nil,
      revocationDateMs: purchase.cancellationDateMs,
      revocationReason: purchase.cancellationDateMs == nil ? nil : .refunded,
      isUpgraded: purchase.isUpgraded ?? false,
      ownershipType: purchase.inAppOwnershipType == "FAMILY_SHARED" ? .familyShared : .purchased,
      subscriptionGroupIdentifier: purchase.subscriptionGroupIdentifier)
  }
}

extension RenewalInfo {
  public init(appStoreLegacy info: LegacyPendingRenewalInfo) {
    self.init(
      willAutoRenew: info.autoRenewStatus ?? false,
      autoRenewProductId: info.autoRenewProductId,
      expirationIntent: info.expirationIntent.flatMap(ExpirationIntent.init(appStoreExpirationIntent:)),
      isInBillingRetryPeriod: info.isInBillingRetryPeriod ?? false,
      gracePeriodExpiresDateMs: info.gracePeriodExpiresDateMs,
      priceIncreaseStatus: info.priceConsentStatus.flatMap { $0 == 0 ? .pending : $0 == 1 ? .agreed : nil })
  }
}

extension SubscriptionHistory {
  /// The chains in a verifyReceipt answer (or a V1 `unified_receipt`), one per
  /// original_transaction_id, from `latest_receipt_info` (else `in_app`).
  public static func appStoreLegacy(_ response: VerifyReceiptResponse, asOfMs: Int64) -> [SubscriptionHistory] {
    let byChain = Dictionary(grouping: response.transactions) { $0.originalTransactionId ?? $0.transactionId ?? "" }
    let environment: StoreEnvironment = response.environment == "Production" ? .production : .sandbox
    return byChain.keys.sorted().filter { !$0.isEmpty }.map { chain in
      let renewal =
        response.pendingRenewalInfo.first { $0.originalTransactionId == chain }
        ?? (byChain.count == 1 ? response.pendingRenewalInfo.first : nil)
      return SubscriptionHistory(
        store: .appStore, purchaseId: chain, environment: environment,
        transactions: (byChain[chain] ?? []).compactMap(StoreTransaction.init(appStoreLegacy:)),
        renewalInfo: renewal.map(RenewalInfo.init(appStoreLegacy:)), asOfMs: asOfMs)
    }
  }
}

extension StoreEvent {
  /// Maps a V1 notification; `nil` when it names no chain.
  public init?(appStoreV1 notification: NotificationV1, eventId: String, receivedAtMs: Int64) {
    guard let chain = notification.originalTransactionId else { return nil }
    let receipt = notification.unifiedReceipt
    let purchases = (receipt?.transactions ?? []).filter { $0.originalTransactionId == chain }
    let renewal = receipt?.pendingRenewalInfo.first { $0.originalTransactionId == chain }
    self.init(
      eventId: eventId, store: .appStore, purchaseId: chain, kind: notification.eventKind, occurredAtMs: receivedAtMs,
      environment: notification.storeEnvironment,
      transactions: purchases.compactMap(StoreTransaction.init(appStoreLegacy:)),
      renewalInfo: renewal.map(RenewalInfo.init(appStoreLegacy:)))
  }
}
