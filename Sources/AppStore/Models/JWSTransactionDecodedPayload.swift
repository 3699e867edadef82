/// A verified App Store transaction (`JWSTransactionDecodedPayload`), with Apple's field names.
///
/// Every field is optional and enums keep their raw value beside a typed accessor, so a value
/// Apple adds later never breaks decoding.
public struct JWSTransactionDecodedPayload: Sendable, Hashable, Decodable {
  public var originalTransactionId: String?
  public var transactionId: String?
  public var webOrderLineItemId: String?
  public var bundleId: String?
  public var productId: String?
  public var subscriptionGroupIdentifier: String?
  @Milliseconds public var purchaseDate: Int64?
  @Milliseconds public var originalPurchaseDate: Int64?
  @Milliseconds public var expiresDate: Int64?
  public var quantity: Int?
  /// Raw `type`: "Auto-Renewable Subscription", "Non-Consumable", "Consumable", "Non-Renewing Subscription".
  public var type: String?
  public var appAccountToken: String?
  /// Raw `inAppOwnershipType`: PURCHASED or FAMILY_SHARED.
  public var inAppOwnershipType: String?
  @Milliseconds public var signedDate: Int64?
  /// 0 = other, 1 = an issue with the app (Apple `revocationReason`).
  public var revocationReason: Int?
  @Milliseconds public var revocationDate: Int64?
  public var isUpgraded: Bool?
  /// 1 introductory, 2 promotional, 3 offer code, 4 win-back.
  public var offerType: Int?
  public var offerIdentifier: String?
  /// Raw environment: Production, Sandbox, Xcode, LocalTesting.
  public var environment: String?
  public var storefront: String?
  public var storefrontId: String?
  /// Raw `transactionReason`: PURCHASE or RENEWAL.
  public var transactionReason: String?
  public var currency: String?
  /// Price in milliunits of `currency`.
  public var price: Int64?
  /// Raw `offerDiscountType`: FREE_TRIAL, PAY_AS_YOU_GO, PAY_UP_FRONT, ONE_TIME.
  public var offerDiscountType: String?
  public var appTransactionId: String?
  public var offerPeriod: String?
  /// Raw `revocationType`: REFUND_FULL, REFUND_PRORATED, FAMILY_REVOKE.
  public var revocationType: String?
  /// Thousandths of a percent (50000 = 50%).
  public var revocationPercentage: Int?
  public var billingPlanType: String?

  public init() {}

  public var typedEnvironment: AppStoreEnvironment? { environment.flatMap(AppStoreEnvironment.init(rawValue:)) }
  public var typedType: TransactionType? { type.flatMap(TransactionType.init(rawValue:)) }
  public var typedInAppOwnershipType: InAppOwnershipType? {
    inAppOwnershipType.flatMap(InAppOwnershipType.init(rawValue:))
  }
  public var typedOfferType: AppStoreOfferType? { offerType.flatMap(AppStoreOfferType.init(rawValue:)) }
  public var typedOfferDiscountType: AppStoreOfferDiscountType? {
    offerDiscountType.flatMap(AppStoreOfferDiscountType.init(rawValue:))
  }
  public var typedTransactionReason: TransactionReason? { transactionReason.flatMap(TransactionReason.init(rawValue:)) }
}

/// Apple `type` of an in-app purchase.
public enum TransactionType: String, Sendable, Hashable, CaseIterable {
  case autoRenewableSubscription = "Auto-Renewable Subscription"
  case nonConsumable = "Non-Consumable"
  case consumable = "Consumable"
  case nonRenewingSubscription = "Non-Renewing Subscription"
}

public enum InAppOwnershipType: String, Sendable, Hashable, CaseIterable {
  case purchased = "PURCHASED"
  case familyShared = "FAMILY_SHARED"
}

/// Apple `offerType` (1–4).
public enum AppStoreOfferType: Int, Sendable, Hashable, CaseIterable {
  case introductory = 1
  case promotional = 2
  case offerCode = 3
  case winBack = 4
}

public enum AppStoreOfferDiscountType: String, Sendable, Hashable, CaseIterable {
  case freeTrial = "FREE_TRIAL"
  case payAsYouGo = "PAY_AS_YOU_GO"
  case payUpFront = "PAY_UP_FRONT"
  case oneTime = "ONE_TIME"
}

public enum TransactionReason: String, Sendable, Hashable, CaseIterable {
  case purchase = "PURCHASE"
  case renewal = "RENEWAL"
}
