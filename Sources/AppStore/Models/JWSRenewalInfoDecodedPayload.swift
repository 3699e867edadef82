/// Verified subscription renewal information (`JWSRenewalInfoDecodedPayload`), Apple's names.
public struct JWSRenewalInfoDecodedPayload: Sendable, Hashable, Decodable {
  /// 1 customer canceled, 2 billing error, 3 price increase declined, 4 product unavailable, 5 other.
  public var expirationIntent: Int?
  public var originalTransactionId: String?
  public var autoRenewProductId: String?
  public var productId: String?
  /// 0 off, 1 on.
  public var autoRenewStatus: Int?
  public var isInBillingRetryPeriod: Bool?
  /// 0 the customer has not responded to a price increase, 1 consented (or no consent needed).
  public var priceIncreaseStatus: Int?
  @Milliseconds public var gracePeriodExpiresDate: Int64?
  public var offerType: Int?
  public var offerIdentifier: String?
  @Milliseconds public var signedDate: Int64?
  public var environment: String?
  @Milliseconds public var recentSubscriptionStartDate: Int64?
  @Milliseconds public var renewalDate: Int64?
  public var currency: String?
  public var renewalPrice: Int64?
  public var offerDiscountType: String?
  public var eligibleWinBackOfferIds: [String]?
  public var appAccountToken: String?
  public var appTransactionId: String?
  public var offerPeriod: String?

  public init() {}

  public var typedEnvironment: AppStoreEnvironment? { environment.flatMap(AppStoreEnvironment.init(rawValue:)) }
  public var typedOfferType: AppStoreOfferType? { offerType.flatMap(AppStoreOfferType.init(rawValue:)) }
}
