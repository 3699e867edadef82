/// A `purchases.productsv2.getproductpurchasev2` resource (`ProductPurchaseV2`): a one-time
/// purchase with one line item per product.
public struct ProductPurchaseV2: Sendable, Hashable, Decodable {
  /// "androidpublisher#productPurchaseV2".
  public var kind: String?
  @LossyList public var productLineItem: [ProductLineItem]?
  public var purchaseStateContext: PurchaseStateContext?
  /// Present only for a test purchase.
  public var testPurchaseContext: TestPurchaseContext?
  public var orderId: String?
  public var obfuscatedExternalAccountId: String?
  public var obfuscatedExternalProfileId: String?
  public var regionCode: String?
  @GoogleTime public var purchaseCompletionTime: Int64?
  /// Raw `acknowledgementState`.
  public var acknowledgementState: String?

  public init() {}

  public var typedAcknowledgementState: AcknowledgementState? {
    acknowledgementState.flatMap(AcknowledgementState.init(rawValue:))
  }
  public var isTestPurchase: Bool { testPurchaseContext != nil }
}

/// `purchaseStateContext`.
public struct PurchaseStateContext: Sendable, Hashable, Decodable {
  /// Raw `purchaseState`: PURCHASED, PENDING, CANCELLED.
  public var purchaseState: String?

  public var typedPurchaseState: ProductPurchaseStateV2? {
    purchaseState.flatMap(ProductPurchaseStateV2.init(rawValue:))
  }
}

/// `purchaseStateContext.purchaseState` of productsv2.
public enum ProductPurchaseStateV2: String, Sendable, Hashable, CaseIterable {
  case unspecified = "PURCHASE_STATE_UNSPECIFIED"
  case purchased = "PURCHASED"
  case pending = "PENDING"
  case cancelled = "CANCELLED"
}

/// `testPurchaseContext`.
public struct TestPurchaseContext: Sendable, Hashable, Decodable {
  /// Raw `fopType`, e.g. TEST.
  public var fopType: String?
}

/// `productLineItem`.
public struct ProductLineItem: Sendable, Hashable, Decodable {
  public var productId: String?
  public var productOfferDetails: ProductOfferDetails?
}

/// `productOfferDetails`.
public struct ProductOfferDetails: Sendable, Hashable, Decodable {
  public var offerTags: [String]?
  public var offerId: String?
  public var purchaseOptionId: String?
  public var offerToken: String?
  public var quantity: Int?
  public var refundableQuantity: Int?
  /// Raw `consumptionState`, e.g. CONSUMPTION_STATE_CONSUMED.
  public var consumptionState: String?
  /// Present for a rental: access for a limited time, not for life.
  public var rentOfferDetails: Marker?
  public var preorderOfferDetails: PreorderOfferDetails?
}

/// `preorderOfferDetails`.
public struct PreorderOfferDetails: Sendable, Hashable, Decodable {
  @GoogleTime public var preorderReleaseTime: Int64?
}
