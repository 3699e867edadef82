/// A transaction as the simulator keeps it and signs it (Apple's `JWSTransactionDecodedPayload`
/// field names; `nil` fields are left out of the JSON, as Apple does).
public struct AppleTransaction: Sendable, Hashable, Encodable {
  public var transactionId: String
  public var originalTransactionId: String
  public var webOrderLineItemId: String?
  public var bundleId: String
  public var productId: String
  public var subscriptionGroupIdentifier: String?
  public var purchaseDate: Int64
  public var originalPurchaseDate: Int64
  public var expiresDate: Int64?
  public var quantity: Int = 1
  public var type: String = "Auto-Renewable Subscription"
  public var appAccountToken: String?
  public var inAppOwnershipType: String = "PURCHASED"
  public var signedDate: Int64?
  public var revocationReason: Int?
  public var revocationDate: Int64?
  public var revocationType: String?
  public var isUpgraded: Bool?
  public var offerType: Int?
  public var offerDiscountType: String?
  public var offerPeriod: String?
  public var environment: String
  public var storefront: String
  public var storefrontId: String
  public var transactionReason: String
  public var currency: String
  public var price: Int64
  /// Not part of Apple's payload: the order this transaction belongs to (Look Up Order ID).
  public var orderId: String

  private enum CodingKeys: String, CodingKey {
    case transactionId, originalTransactionId, webOrderLineItemId, bundleId, productId, subscriptionGroupIdentifier
    case purchaseDate, originalPurchaseDate, expiresDate, quantity, type, appAccountToken, inAppOwnershipType
    case signedDate, revocationReason, revocationDate, revocationType, isUpgraded, offerType, offerDiscountType
    case offerPeriod, environment, storefront, storefrontId, transactionReason, currency, price
  }

  init(
    transactionId: String, originalTransactionId: String, webOrderLineItemId: String, bundleId: String,
    productId: String, groupId: String, purchaseDate: Int64, originalPurchaseDate: Int64, expiresDate: Int64,
    environment: String, storefront: String, storefrontId: String, reason: String, currency: String, price: Int64,
    orderId: String
  ) {
    self.transactionId = transactionId
    self.originalTransactionId = originalTransactionId
    self.webOrderLineItemId = webOrderLineItemId
    self.bundleId = bundleId
    self.productId = productId
    self.subscriptionGroupIdentifier = groupId
    self.purchaseDate = purchaseDate
    self.originalPurchaseDate = originalPurchaseDate
    self.expiresDate = expiresDate
    self.environment = environment
    self.storefront = storefront
    self.storefrontId = storefrontId
    self.transactionReason = reason
    self.currency = currency
    self.price = price
    self.orderId = orderId
  }
}

/// Apple's `JWSRenewalInfoDecodedPayload`, as signed.
struct AppleRenewalInfo: Sendable, Hashable, Encodable {
  var originalTransactionId: String
  var autoRenewProductId: String
  var productId: String
  var autoRenewStatus: Int
  var expirationIntent: Int?
  var isInBillingRetryPeriod: Bool?
  var gracePeriodExpiresDate: Int64?
  var recentSubscriptionStartDate: Int64
  var renewalDate: Int64?
  var environment: String
  var signedDate: Int64
  var appAccountToken: String?
  var currency: String
  var renewalPrice: Int64
}

/// Apple's `ResponseBodyV2DecodedPayload` for a notification about a purchase.
struct AppleNotificationPayload: Sendable, Encodable {
  struct Data: Sendable, Encodable {
    var appAppleId: Int64
    var bundleId: String
    var bundleVersion: String
    var environment: String
    var signedTransactionInfo: String
    /// Auto-renewable subscriptions only.
    var signedRenewalInfo: String?
    /// Auto-renewable subscriptions only.
    var status: Int?
  }

  var notificationType: String
  var subtype: String?
  var notificationUUID: String
  var version = "2.0"
  var signedDate: Int64
  var data: Data
}

/// `{"signedPayload": …}`, the body Apple posts.
struct AppleNotificationBody: Encodable {
  var signedPayload: String
}
