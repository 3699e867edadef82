/// A `purchases.products.get` resource (`ProductPurchase`): a one-time product, with Google's
/// field names and integer codes kept raw beside typed accessors.
public struct ProductPurchase: Sendable, Hashable, Decodable {
  /// "androidpublisher#productPurchase".
  public var kind: String?
  @GoogleMillis public var purchaseTimeMillis: Int64?
  /// 0 purchased, 1 canceled, 2 pending.
  public var purchaseState: Int?
  /// 0 yet to be consumed, 1 consumed.
  public var consumptionState: Int?
  public var developerPayload: String?
  public var orderId: String?
  /// Absent for a normal purchase; 0 test, 1 promo, 2 rewarded.
  public var purchaseType: Int?
  /// 0 yet to be acknowledged, 1 acknowledged.
  public var acknowledgementState: Int?
  public var purchaseToken: String?
  public var productId: String?
  public var quantity: Int?
  public var obfuscatedExternalAccountId: String?
  public var obfuscatedExternalProfileId: String?
  public var regionCode: String?
  public var refundableQuantity: Int?

  public init() {}

  public var typedPurchaseState: ProductPurchaseState? { purchaseState.flatMap(ProductPurchaseState.init(rawValue:)) }
  public var typedPurchaseType: ProductPurchaseType? { purchaseType.flatMap(ProductPurchaseType.init(rawValue:)) }
  /// `nil` for a code Google has not documented.
  public var isAcknowledged: Bool? {
    switch acknowledgementState {
    case 0: false
    case 1: true
    default: nil
    }
  }
}

/// `ProductPurchase.purchaseState`.
public enum ProductPurchaseState: Int, Sendable, Hashable, CaseIterable {
  case purchased = 0
  case canceled = 1
  case pending = 2
}

/// `ProductPurchase.purchaseType`.
public enum ProductPurchaseType: Int, Sendable, Hashable, CaseIterable {
  /// Bought with a license tester account.
  case test = 0
  /// Bought with a promo code.
  case promo = 1
  /// Granted for watching an ad.
  case rewarded = 2
}
