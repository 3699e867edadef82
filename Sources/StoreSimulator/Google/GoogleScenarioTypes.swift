/// A Google Play purchase to simulate: a subscription (optionally with its free trial or
/// introductory offer) or a one-time product, decided by `productId`.
public struct GooglePurchaseRequest: Sendable, Codable, Hashable {
  public var productId: String
  /// Optional with one configured app.
  public var packageName: String?
  /// `trial` or `intro` (subscriptions only).
  public var offer: String?
  /// What the app passed to `setObfuscatedAccountId`.
  public var obfuscatedExternalAccountId: String?
  public var obfuscatedExternalProfileId: String?
  /// A license tester's purchase: `testPurchase` (subscriptions), `purchaseType` 0 (products).
  public var testPurchase: Bool?
  /// Already acknowledged by the app through the Play Billing Library.
  public var acknowledged: Bool?
  /// A re-signup after expiry: the new token links to this one (`linkedPurchaseToken`).
  public var linkedPurchaseToken: String?

  public init(
    productId: String, packageName: String? = nil, offer: String? = nil, obfuscatedExternalAccountId: String? = nil,
    obfuscatedExternalProfileId: String? = nil, testPurchase: Bool? = nil, acknowledged: Bool? = nil,
    linkedPurchaseToken: String? = nil
  ) {
    self.productId = productId
    self.packageName = packageName
    self.offer = offer
    self.obfuscatedExternalAccountId = obfuscatedExternalAccountId
    self.obfuscatedExternalProfileId = obfuscatedExternalProfileId
    self.testPurchase = testPurchase
    self.acknowledged = acknowledged
    self.linkedPurchaseToken = linkedPurchaseToken
  }
}

/// What a simulated Google purchase hands the app (what `Purchase` holds on the device).
public struct GooglePurchaseResult: Sendable, Codable, Hashable {
  public var purchaseToken: String
  public var packageName: String
  public var productId: String
  public var orderId: String
  /// `subscription` or `oneTimeProduct`.
  public var productType: String
  public var purchaseTimeMs: Int64
  /// The subscription's first expiry; `nil` for a one-time product.
  public var expiryTimeMs: Int64?
  /// `INAPP_PURCHASE_DATA` as the Play Billing library hands it to the app (`Purchase.originalJson`).
  public var originalJson: String
  /// Its signature (`Purchase.signature`): base64 RSA-SHA1 with the licensing key
  /// (`StoreSimulator.googleLicensingKeyBase64`).
  public var signature: String
}

/// The simulator's view of one Google purchase token, for tests and `GET /sim/google/purchases/{token}`.
public struct GooglePurchaseSnapshot: Sendable, Codable, Hashable {
  public var purchaseToken: String
  public var packageName: String
  public var productId: String
  /// `subscription` or `oneTimeProduct`.
  public var productType: String
  /// subscriptionsv2's `subscriptionState`; for a one-time product PURCHASED, CANCELLED or PENDING.
  public var state: String
  public var startTimeMs: Int64
  public var expiryTimeMs: Int64?
  public var autoRenewEnabled: Bool?
  public var acknowledged: Bool
  public var testPurchase: Bool
  public var orderIds: [String]
  public var linkedPurchaseToken: String?
  public var replacedByToken: String?
  public var obfuscatedExternalAccountId: String?
  public var cancellation: GoogleCancellation?
  public var failRenewals: Bool?
  public var autoResumeTimeMs: Int64?
  public var scheduledPauseMs: Int64?
  public var deferredReplacementProductId: String?
  public var priceChangeState: String?
  public var voided: Bool
}
