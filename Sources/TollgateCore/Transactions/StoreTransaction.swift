/// One billing period of a subscription as a store reports it: an Apple transaction, a Google
/// Play order (`GPA.…..N`), or the current term of an Amazon receipt.
///
/// Store modules map their verified payloads into this shape; every time is Int64 milliseconds
/// since the epoch, UTC.
public struct StoreTransaction: Sendable, Hashable, Codable {
  /// Apple `transactionId`, Google `orderId` (renewals carry the `..N` suffix), Amazon `receiptId`.
  public var transactionId: String
  /// The product (Apple `productId`, Google line item `productId`, Amazon `termSku` or `productId`).
  public var productId: String
  /// When this period starts (Apple `purchaseDate`, Google order start, Amazon `purchaseDate`).
  public var purchaseDateMs: Int64
  /// When this period ends (Apple `expiresDate`, Google line item `expiryTime`, Amazon
  /// `renewalDate`).
  public var expiresDateMs: Int64
  /// The kind of offer applied to this period; `nil` at the regular price.
  public var offerType: OfferType?
  /// How the offer discounts the period; a free trial when `.freeTrial`.
  public var offerDiscountType: OfferDiscountType?
  /// When the store refunded or revoked this period (Apple `revocationDate`, Google voided
  /// purchase, Amazon mid-term `cancelDate`). A revoked period counts as never bought.
  public var revocationDateMs: Int64?
  /// Why the period was revoked.
  public var revocationReason: RevocationReason?
  /// Apple `isUpgraded`: the customer moved to a higher level in the same group and the next
  /// transaction of the chain replaces this one from its start.
  public var isUpgraded: Bool
  /// Apple `inAppOwnershipType`: purchased by the user or shared with them through Family Sharing.
  public var ownershipType: OwnershipType
  /// Apple `subscriptionGroupIdentifier`; Google and Amazon leave it `nil` (the configuration
  /// knows the group).
  public var subscriptionGroupIdentifier: String?
  /// The price paid for the period in milliunits of `currency`, where the store reports it (Apple
  /// `price`); `nil` otherwise.
  public var priceMilli: Int64?
  /// ISO 4217 code of `priceMilli` (Apple `currency`).
  public var currency: String?
  /// Where it was bought (Apple `storefront`, ISO 3166-1 alpha-3).
  public var storefront: String?

  public init(
    transactionId: String,
    productId: String,
    purchaseDateMs: Int64,
    expiresDateMs: Int64,
    offerType: OfferType? = nil,
    offerDiscountType: OfferDiscountType? = nil,
    revocationDateMs: Int64? = nil,
    revocationReason: RevocationReason? = nil,
    isUpgraded: Bool = false,
    ownershipType: OwnershipType = .purchased,
    subscriptionGroupIdentifier: String? = nil,
    priceMilli: Int64? = nil,
    currency: String? = nil,
    storefront: String? = nil
  ) {
    self.transactionId = transactionId
    self.productId = productId
    self.purchaseDateMs = purchaseDateMs
    self.expiresDateMs = expiresDateMs
    self.offerType = offerType
    self.offerDiscountType = offerDiscountType
    self.revocationDateMs = revocationDateMs
    self.revocationReason = revocationReason
    self.isUpgraded = isUpgraded
    self.ownershipType = ownershipType
    self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
    self.priceMilli = priceMilli
    self.currency = currency
    self.storefront = storefront
  }

  /// Whether the store refunded or revoked this period.
  public var isRevoked: Bool { revocationDateMs != nil }

  /// Whether this period is a free trial.
  public var isFreeTrial: Bool { offerDiscountType == .freeTrial }
}

/// The kind of offer a period was bought under (Apple `offerType` 1–4; Google line item
/// `offerPhase`; Amazon `freeTrialEndDate` and `promotions`).
public enum OfferType: String, Sendable, Hashable, Codable, CaseIterable {
  /// Apple offerType 1; Google `freeTrial` / `introductoryPrice` phases; Amazon free trial or
  /// introductory promotion. Counts against trial / intro-offer eligibility.
  case introductory
  /// Apple offerType 2 (promotional offer).
  case promotional
  /// Apple offerType 3 (offer code).
  case offerCode = "offer_code"
  /// Apple offerType 4 (win-back offer).
  case winBack = "win_back"
}

/// How an offer discounts a period (Apple `offerDiscountType`).
public enum OfferDiscountType: String, Sendable, Hashable, Codable, CaseIterable {
  case freeTrial = "free_trial"
  case payAsYouGo = "pay_as_you_go"
  case payUpFront = "pay_up_front"
}

/// Apple `inAppOwnershipType`. Google and Amazon subscriptions are always `.purchased`.
public enum OwnershipType: String, Sendable, Hashable, Codable, CaseIterable {
  case purchased
  case familyShared = "family_shared"
}

/// Why a store took a period back.
public enum RevocationReason: String, Sendable, Hashable, Codable, CaseIterable {
  /// Refunded (Apple `revocationReason` 0 or 1, Google voided purchase with a refund,
  /// Amazon customer-service cancellation).
  case refunded
  /// Revoked without a refund (Google `purchases.subscriptions.revoke`, Google voided purchase
  /// of type chargeback).
  case revoked
  /// Apple REVOKE: the purchaser stopped sharing it through Family Sharing.
  case familySharingRevoked = "family_sharing_revoked"
}
