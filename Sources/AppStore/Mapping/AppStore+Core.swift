import TollgateCore

extension StoreEnvironment {
  /// Production stays production; Sandbox, Xcode and LocalTesting are all test environments.
  public init(appStore raw: String?) {
    self = raw == AppStoreEnvironment.production.rawValue ? .production : .sandbox
  }
}

extension StoreTransaction {
  /// Maps a verified transaction; `nil` without transactionId, productId or purchaseDate.
  ///
  /// A transaction without `expiresDate` (non-consumable, consumable) never expires:
  /// `expiresDateMs` is `Int64.max`.
  public init?(appStore transaction: JWSTransactionDecodedPayload) {
    guard let transactionId = transaction.transactionId, let productId = transaction.productId,
      let purchaseDate = transaction.purchaseDate
    else { return nil }
    self.init(
      transactionId: transactionId,
      productId: productId,
      purchaseDateMs: purchaseDate,
      expiresDateMs: transaction.expiresDate ?? Int64.max,
      offerType: transaction.typedOfferType.map(OfferType.init(appStore:)),
      offerDiscountType: transaction.typedOfferDiscountType.flatMap(OfferDiscountType.init(appStore:)),
      revocationDateMs: transaction.revocationDate,
      revocationReason: transaction.revocationDate == nil
        ? nil : RevocationReason(appStoreRevocationType: transaction.revocationType),
      isUpgraded: transaction.isUpgraded ?? false,
      ownershipType: transaction.typedInAppOwnershipType == .familyShared ? .familyShared : .purchased,
      subscriptionGroupIdentifier: transaction.subscriptionGroupIdentifier, priceMilli: transaction.price,
      currency: transaction.currency, storefront: transaction.storefront)
  }
}

extension OfferType {
  public init(appStore offerType: AppStoreOfferType) {
    switch offerType {
    case .introductory: self = .introductory
    case .promotional: self = .promotional
    case .offerCode: self = .offerCode
    case .winBack: self = .winBack
    }
  }
}

extension OfferDiscountType {
  /// ONE_TIME (a one-time charge, not a subscription discount) has no Core equivalent.
  public init?(appStore discount: AppStoreOfferDiscountType) {
    switch discount {
    case .freeTrial: self = .freeTrial
    case .payAsYouGo: self = .payAsYouGo
    case .payUpFront: self = .payUpFront
    case .oneTime: return nil
    }
  }
}

extension RevocationReason {
  /// FAMILY_REVOKE means the purchaser stopped sharing; any other revocation is a refund
  /// (Apple `revocationReason` 0 or 1).
  public init(appStoreRevocationType type: String?) {
    self = type == "FAMILY_REVOKE" ? .familySharingRevoked : .refunded
  }
}

extension RenewalInfo {
  public init(appStore info: JWSRenewalInfoDecodedPayload) {
    self.init(
      willAutoRenew: info.autoRenewStatus == 1,
      autoRenewProductId: info.autoRenewProductId,
      expirationIntent: info.expirationIntent.flatMap(ExpirationIntent.init(appStoreExpirationIntent:)),
      isInBillingRetryPeriod: info.isInBillingRetryPeriod ?? false,
      gracePeriodExpiresDateMs: info.gracePeriodExpiresDate,
      priceIncreaseStatus: info.priceIncreaseStatus.flatMap { $0 == 0 ? .pending : $0 == 1 ? .agreed : nil })
  }
}

extension StoreEvent {
  /// Maps a verified V2 notification about a purchase chain. `nil` when it names no chain
  /// (TEST, RENEWAL_EXTENSION/SUMMARY, EXTERNAL_PURCHASE_TOKEN, RESCIND_CONSENT…).
  /// A notification type Core does not know maps to `.informational`.
  public init?(appStore verified: VerifiedNotification) {
    let notification = verified.notification
    guard
      let purchaseId = verified.transaction?.originalTransactionId ?? verified.renewalInfo?.originalTransactionId
    else { return nil }
    let kind =
      notification.notificationType.flatMap {
        StoreEventKind(appStoreNotificationType: $0, subtype: notification.subtype)
      } ?? .informational
    self.init(
      eventId: notification.notificationUUID ?? "app_store:\(purchaseId):\(notification.signedDate ?? 0)",
      store: .appStore,
      purchaseId: purchaseId,
      kind: kind,
      occurredAtMs: notification.signedDate ?? verified.transaction?.signedDate ?? 0,
      environment: StoreEnvironment(appStore: notification.appContext.environment),
      transactions: verified.transaction.flatMap(StoreTransaction.init(appStore:)).map { [$0] } ?? [],
      renewalInfo: verified.renewalInfo.map(RenewalInfo.init(appStore:)))
  }
}

extension SubscriptionHistory {
  /// A chain read from the App Store Server API (transaction history + subscription status).
  /// Transactions of other chains are left out.
  public init(
    appStoreOriginalTransactionId originalTransactionId: String, transactions: [JWSTransactionDecodedPayload],
    renewalInfo: JWSRenewalInfoDecodedPayload?, asOfMs: Int64
  ) {
    let mine = transactions.filter { $0.originalTransactionId == originalTransactionId }
    self.init(
      store: .appStore,
      purchaseId: originalTransactionId,
      environment: StoreEnvironment(appStore: mine.first?.environment ?? renewalInfo?.environment),
      transactions: mine.compactMap(StoreTransaction.init(appStore:)),
      renewalInfo: renewalInfo.map(RenewalInfo.init(appStore:)),
      asOfMs: asOfMs)
  }
}
