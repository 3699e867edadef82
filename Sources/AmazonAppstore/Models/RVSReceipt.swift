import TollgateCore

/// One receipt as the Receipt Verification Service describes it (`verifyReceiptId`'s JSON body),
/// with Amazon's field names.
///
/// Decoding is tolerant: every field is optional, unknown fields are ignored, key case does not
/// matter (`AutoRenewing` reads as `autoRenewing`), `null` is absent, and dates (ms since the
/// epoch) and numbers may come as JSON numbers or strings. A field that is present but unreadable
/// is left out and named in `unreadableFields`. Enumerations keep Amazon's raw value beside a
/// typed accessor, so a value Amazon adds later decodes.
public struct RVSReceipt: Sendable, Hashable, Decodable {
  public var receiptId: String?
  /// The Amazon user id that owns the receipt, when the body names it (the request always does).
  public var userId: String?
  /// Raw `productType`: SUBSCRIPTION, ENTITLED or CONSUMABLE.
  public var productType: String?
  /// The SKU of the item: for a subscription, its parent SKU.
  public var productId: String?
  /// The subscription all terms and tiers belong to (tiered subscriptions).
  public var parentProductId: String?
  /// The term's length as Amazon words it ("1 Week", "1 Month").
  public var term: String?
  /// The SKU of the subscription term that was bought.
  public var termSku: String?
  public var purchaseDate: Int64?
  /// When the current term ends and the subscription renews.
  public var renewalDate: Int64?
  /// When the purchase was cancelled or the subscription ended.
  public var cancelDate: Int64?
  /// Raw `cancelReason` (0 unknown, 1 customer, 2 billing failure, 3 Amazon, 4 tier change).
  public var cancelReason: Int?
  public var autoRenewing: Bool?
  public var freeTrialEndDate: Int64?
  public var gracePeriodEndDate: Int64?
  /// A deferred tier or term change: the term SKU it renews into, and when.
  public var deferredSku: String?
  public var deferredDate: Int64?
  /// A purchase made in a test environment (App Tester, Live App Testing): sandbox.
  public var testTransaction: Bool?
  /// A purchase of a product in a beta test.
  public var betaProduct: Bool?
  /// How many were bought (consumables); `null` for subscriptions.
  public var quantity: Int?
  public var countryCode: String?
  public var fulfillmentDate: Int64?
  public var fulfillmentResult: String?
  /// Introductory-price and free-trial promotions of the subscription.
  public var promotions: [RVSPromotion]?
  /// Fields that were present but could not be read (a date that is not a number, ...).
  public var unreadableFields: [String]

  public init(
    receiptId: String? = nil, userId: String? = nil, productType: String? = nil, productId: String? = nil,
    parentProductId: String? = nil, term: String? = nil, termSku: String? = nil, purchaseDate: Int64? = nil,
    renewalDate: Int64? = nil, cancelDate: Int64? = nil, cancelReason: Int? = nil, autoRenewing: Bool? = nil,
    freeTrialEndDate: Int64? = nil, gracePeriodEndDate: Int64? = nil, deferredSku: String? = nil,
    deferredDate: Int64? = nil, testTransaction: Bool? = nil, betaProduct: Bool? = nil, quantity: Int? = nil,
    promotions: [RVSPromotion]? = nil
  ) {
    self.receiptId = receiptId
    self.userId = userId
    self.productType = productType
    self.productId = productId
    self.parentProductId = parentProductId
    self.term = term
    self.termSku = termSku
    self.purchaseDate = purchaseDate
    self.renewalDate = renewalDate
    self.cancelDate = cancelDate
    self.cancelReason = cancelReason
    self.autoRenewing = autoRenewing
    self.freeTrialEndDate = freeTrialEndDate
    self.gracePeriodEndDate = gracePeriodEndDate
    self.deferredSku = deferredSku
    self.deferredDate = deferredDate
    self.testTransaction = testTransaction
    self.betaProduct = betaProduct
    self.quantity = quantity
    self.promotions = promotions
    self.unreadableFields = []
  }

  public init(from decoder: any Decoder) throws {
    var object = try LenientObject(from: decoder)
    receiptId = object.string("receiptId")
    userId = object.string("userId")
    productType = object.string("productType")
    productId = object.string("productId")
    parentProductId = object.string("parentProductId")
    term = object.string("term")
    termSku = object.string("termSku")
    purchaseDate = object.int64("purchaseDate")
    renewalDate = object.int64("renewalDate")
    cancelDate = object.int64("cancelDate")
    cancelReason = object.int("cancelReason")
    autoRenewing = object.bool("autoRenewing")
    freeTrialEndDate = object.int64("freeTrialEndDate")
    gracePeriodEndDate = object.int64("gracePeriodEndDate")
    deferredSku = object.string("deferredSku")
    deferredDate = object.int64("deferredDate")
    testTransaction = object.bool("testTransaction")
    betaProduct = object.bool("betaProduct")
    quantity = object.int("quantity")
    countryCode = object.string("countryCode")
    fulfillmentDate = object.int64("fulfillmentDate")
    fulfillmentResult = object.string("fulfillmentResult")
    promotions = object.decode(LossyPromotions.self, "promotions")?.elements
    unreadableFields = object.unreadable.sorted()
  }

  public var typedProductType: RVSProductType? {
    productType.flatMap { RVSProductType(rawValue: $0.uppercased()) }
  }

  public var typedCancelReason: RVSCancelReason? { cancelReason.flatMap(RVSCancelReason.init(rawValue:)) }

  /// Whether Amazon marks this a test purchase (`testTransaction`).
  public var isTestTransaction: Bool { testTransaction ?? false }

  /// The SKU Core and the catalog know a subscription period by: the term SKU, else the product id.
  /// `deferredSku` names a term SKU, so a pending change compares like with like.
  public var periodProductId: String? {
    switch typedProductType {
    case .subscription?: termSku ?? productId
    case .entitled?, .consumable?, nil: productId ?? termSku
    }
  }
}

/// `productType`.
public enum RVSProductType: String, Sendable, Hashable, CaseIterable {
  case subscription = "SUBSCRIPTION"
  /// A non-consumable: owned until cancelled.
  case entitled = "ENTITLED"
  case consumable = "CONSUMABLE"
}

/// `cancelReason`, as Amazon documents it for RVS
/// (https://developer.amazon.com/docs/in-app-purchasing/iap-rvs-for-tiered-subs.html).
public enum RVSCancelReason: Int, Sendable, Hashable, CaseIterable {
  /// 0: Amazon could not determine why.
  case unknown = 0
  /// 1: the customer cancelled (or did not renew).
  case customer = 1
  /// 2: the subscription lapsed after a billing failure.
  case billingFailure = 2
  /// 3: cancelled by Amazon (internal).
  case amazon = 3
  /// 4: replaced by another tier or term (a tier change).
  case tierChange = 4

  /// In Core's vocabulary.
  public var expirationIntent: ExpirationIntent? { ExpirationIntent(amazonCancelReason: rawValue) }
}

/// A list of promotions whose elements decode one by one; an element that is not an object is
/// left out.
struct LossyPromotions: Decodable {
  var elements: [RVSPromotion]

  init(from decoder: any Decoder) throws {
    var container = try decoder.unkeyedContainer()
    var elements: [RVSPromotion] = []
    while !container.isAtEnd {
      if let promotion = try? container.decode(RVSPromotion.self) {
        elements.append(promotion)
      } else {
        _ = try? container.decode(Skipped.self)
      }
    }
    self.elements = elements
  }
}

/// Any JSON value, read and thrown away.
private struct Skipped: Decodable {
  init(from decoder: any Decoder) throws {}
}
