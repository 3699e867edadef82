/// An Amazon Appstore purchase to simulate: a subscription (by term SKU or parent SKU), an
/// entitlement or a consumable, decided by `sku`.
public struct AmazonPurchaseRequest: Sendable, Codable, Hashable {
  public var sku: String
  /// Optional with one configured app.
  public var appPackageName: String?
  /// The Amazon user id that buys; a new one (Amazon's shape) when `nil`.
  public var userId: String?
  /// Start with the product's free trial (subscriptions with one).
  public var freeTrial: Bool?
  /// A purchase by a live app tester / App Tester: RVS answers it from the RVS Cloud Sandbox
  /// (`/sandbox/…`) only, with `testTransaction` true.
  public var sandbox: Bool?
  /// `betaProduct` (a Live App Testing purchase).
  public var betaProduct: Bool?

  public init(
    sku: String, appPackageName: String? = nil, userId: String? = nil, freeTrial: Bool? = nil, sandbox: Bool? = nil,
    betaProduct: Bool? = nil
  ) {
    self.sku = sku
    self.appPackageName = appPackageName
    self.userId = userId
    self.freeTrial = freeTrial
    self.sandbox = sandbox
    self.betaProduct = betaProduct
  }
}

/// What a simulated Amazon purchase hands the app (`PurchaseResponse`: its `UserData` and
/// `Receipt`).
public struct AmazonPurchaseResult: Sendable, Codable, Hashable {
  public var receiptId: String
  /// The Amazon user id (`PurchaseResponse.getUserData().getUserId()`).
  public var userId: String
  public var appPackageName: String
  public var productType: AmazonProductType
  /// The term SKU for a subscription, the SKU otherwise.
  public var productId: String
  public var parentProductId: String?
  public var purchaseDateMs: Int64
  /// The first term's end (the trial's end with a free trial); `nil` for other products.
  public var renewalDateMs: Int64?
  public var testTransaction: Bool
}

/// The simulator's view of one Amazon receipt and, for a subscription, of the chain it belongs
/// to (`GET /sim/amazon/receipts/{receiptId}`).
public struct AmazonReceiptSnapshot: Sendable, Codable, Hashable {
  public var receiptId: String
  public var userId: String
  public var appPackageName: String
  public var productType: AmazonProductType
  public var productId: String
  public var parentProductId: String?
  public var purchaseDateMs: Int64
  public var renewalDateMs: Int64?
  public var cancelDateMs: Int64?
  public var cancelReason: Int?
  public var autoRenewing: Bool
  public var freeTrialEndDateMs: Int64?
  public var gracePeriodEndDateMs: Int64?
  public var deferredSku: String?
  public var testTransaction: Bool
  /// Subscriptions: the first receipt id, the chain's state, every receipt (oldest first) and
  /// the current one.
  public var subscriptionId: String?
  public var subscriptionState: AmazonSubscriptionState?
  public var receiptIds: [String]?
  public var currentReceiptId: String?
  public var failRenewals: Bool?
  /// The app's SNS subscription: `pendingConfirmation` (notifications are held until the
  /// SubscribeURL is visited), `confirmed`, or `none` (no notificationURL).
  public var notificationEndpoint: String
  /// Notifications held until the endpoint confirms its subscription.
  public var heldNotifications: Int
}
