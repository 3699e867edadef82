/// Amazon's product types, as RVS writes them.
public enum AmazonProductType: String, Sendable, Codable, Hashable {
  case subscription = "SUBSCRIPTION"
  case entitled = "ENTITLED"
  case consumable = "CONSUMABLE"
}

/// One receipt as the simulated Amazon keeps it: what RVS answers for its receipt id. Times are
/// ms since the epoch.
struct AmazonReceipt: Sendable, Hashable {
  var receiptId: String
  var appPackageName: String
  /// The Amazon user id that owns the receipt (RVS's `…/user/{userId}/…`).
  var userId: String
  var productType: AmazonProductType
  /// The term SKU for a subscription, the SKU otherwise.
  var productId: String
  var parentProductId: String?
  var term: String?
  var termSku: String?
  var purchaseDateMs: Int64
  var renewalDateMs: Int64?
  var cancelDateMs: Int64?
  var cancelReason: Int?
  var autoRenewing: Bool
  var freeTrialEndDateMs: Int64?
  var gracePeriodEndDateMs: Int64?
  var deferredDateMs: Int64?
  var deferredSku: String?
  var testTransaction: Bool
  var betaProduct: Bool
  var quantity: Int?
  /// The subscription this receipt is a term of (its first receipt id); `nil` for other products.
  var subscriptionId: String?
  /// When the purchase this receipt stands for was over (cancelled, expired, replaced, or a
  /// later term took over): RVS answers `410` once `receiptRetentionMs` has passed since.
  var endedAtMs: Int64?
}

/// The RVS answer for one receipt, with Amazon's field names, every field present (`null` when
/// it does not apply, as Amazon writes them).
struct AmazonReceiptResource: Encodable {
  let receipt: AmazonReceipt
  let countryCode: String

  private enum CodingKeys: String, CodingKey {
    case autoRenewing, betaProduct, cancelDate, cancelReason, countryCode, deferredDate, deferredSku
    case freeTrialEndDate, gracePeriodEndDate, parentProductId, productId, productType, promotions
    case purchaseDate, quantity, receiptId, renewalDate, term, termSku, testTransaction
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    let r = receipt
    try container.encode(r.autoRenewing, forKey: .autoRenewing)
    try container.encode(r.betaProduct, forKey: .betaProduct)
    try container.encode(r.cancelDateMs, forKey: .cancelDate)
    try container.encode(r.cancelReason, forKey: .cancelReason)
    try container.encode(countryCode, forKey: .countryCode)
    try container.encode(r.deferredDateMs, forKey: .deferredDate)
    try container.encode(r.deferredSku, forKey: .deferredSku)
    try container.encode(r.freeTrialEndDateMs, forKey: .freeTrialEndDate)
    try container.encode(r.gracePeriodEndDateMs, forKey: .gracePeriodEndDate)
    try container.encode(r.parentProductId, forKey: .parentProductId)
    try container.encode(r.productId, forKey: .productId)
    try container.encode(r.productType.rawValue, forKey: .productType)
    try container.encodeNil(forKey: .promotions)
    try container.encode(r.purchaseDateMs, forKey: .purchaseDate)
    try container.encode(r.quantity, forKey: .quantity)
    try container.encode(r.receiptId, forKey: .receiptId)
    try container.encode(r.renewalDateMs, forKey: .renewalDate)
    try container.encode(r.term, forKey: .term)
    try container.encode(r.termSku, forKey: .termSku)
    try container.encode(r.testTransaction, forKey: .testTransaction)
  }
}
