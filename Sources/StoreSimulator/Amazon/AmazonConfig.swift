extension StoreSimulator {
  /// The simulated Amazon Appstore: apps (shared secret, RTN endpoint over Amazon SNS),
  /// subscriptions (a parent SKU with one term SKU each, optional free trial and grace period,
  /// tiers), entitlements and consumables. `Amazon.defaults` has one app, `com.example.amazon`,
  /// two tiers (`com.example.premium` with a 7-day trial, `com.example.basic`), the entitlement
  /// `com.example.lifetime` and the consumable `com.example.coins`.
  public struct Amazon: Sendable {
    public var apps: [AmazonApp] = [AmazonApp()]
    public var subscriptions: [AmazonSubscriptionProduct] = [
      AmazonSubscriptionProduct(
        parentProductId: "com.example.premium", termSku: "com.example.premium.monthly", tier: 1,
        freeTrialMs: 7 * SimDuration.dayMs),
      AmazonSubscriptionProduct(parentProductId: "com.example.basic", termSku: "com.example.basic.monthly", tier: 2),
    ]
    public var entitlements: [String] = ["com.example.lifetime"]
    public var consumables: [String] = ["com.example.coins"]
    /// `false` (the default, Amazon's Appstore SDK model as RVS documents it: `renewalDate` is
    /// "the date the subscription will renew", and `cancelDate` stays null until the
    /// subscription ends): an auto-renewal keeps the receipt and moves its `renewalDate` on.
    /// `true`: every renewal is a new receipt under the same parent SKU (the earlier one keeps
    /// its term), for a receiver that must cope with per-term receipts. Tier changes always
    /// make a new receipt, as Amazon documents.
    public var newReceiptPerTerm = false
    /// After the grace period, Amazon keeps retrying the payment this long before it cancels the
    /// subscription (`cancelReason` 2); 0 cancels at the grace end.
    public var billingRetryAfterGraceMs: Int64 = 0
    /// How long after a purchase is over (cancelled, expired or replaced) RVS still answers 200
    /// for its receipt; then `410`. Amazon documents no figure.
    public var receiptRetentionMs: Int64 = 90 * SimDuration.dayMs
    /// SNS `SignatureVersion`: 2 (SHA256withRSA, SNS's recommended setting) or 1 (SHA1withRSA).
    public var signatureVersion = 2
    /// The RVS Cloud Sandbox accepts any non-empty shared secret, as Amazon documents; `true`
    /// checks it there too.
    public var sandboxChecksSharedSecret = false
    public var countryCode = "US"

    public init() {}

    public static var defaults: Amazon { Amazon() }

    func app(_ packageName: String) -> AmazonApp? { apps.first { $0.appPackageName == packageName } }
    func subscription(termSku: String) -> AmazonSubscriptionProduct? {
      subscriptions.first { $0.termSku == termSku || $0.parentProductId == termSku }
    }
  }

  public struct AmazonApp: Sendable, Codable {
    public var appPackageName = "com.example.amazon"
    /// The Developer Console's shared secret RVS checks (`…/developer/{sharedSecret}/…`).
    public var sharedSecret = "sim-shared-secret"
    /// The HTTP(S) endpoint subscribed to the app's RTN topic; `nil` sends nothing.
    public var notificationURL: String?
    /// The SNS topic the app's Real-Time Notifications are published to.
    public var topicArn = "arn:aws:sns:us-east-1:123456789012:tollgate-sim-rtn"

    public init(appPackageName: String = "com.example.amazon", sharedSecret: String = "sim-shared-secret") {
      self.appPackageName = appPackageName
      self.sharedSecret = sharedSecret
    }

    private enum CodingKeys: String, CodingKey {
      case appPackageName, sharedSecret, notificationURL, topicArn
    }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      appPackageName = try container.decode(String.self, forKey: .appPackageName)
      sharedSecret = try container.decodeIfPresent(String.self, forKey: .sharedSecret) ?? "sim-shared-secret"
      notificationURL = try container.decodeIfPresent(String.self, forKey: .notificationURL)
      topicArn =
        try container.decodeIfPresent(String.self, forKey: .topicArn)
        ?? "arn:aws:sns:us-east-1:123456789012:tollgate-sim-rtn"
    }
  }

  /// A subscription: Amazon's parent SKU and its (one, here) term SKU.
  public struct AmazonSubscriptionProduct: Sendable {
    public var parentProductId: String
    public var termSku: String
    public var periodMs: Int64
    /// RVS's `term` text, e.g. `1 Month`.
    public var term: String
    /// The free trial a first subscriber gets; `nil` for none.
    public var freeTrialMs: Int64?
    /// How long access continues after a failed renewal; `nil` or 0 for none.
    public var gracePeriodMs: Int64?
    /// The tier inside the tier group: 1 is the highest.
    public var tier: Int

    public init(
      parentProductId: String, termSku: String, periodMs: Int64 = 30 * SimDuration.dayMs, term: String = "1 Month",
      tier: Int = 1, freeTrialMs: Int64? = nil, gracePeriodMs: Int64? = 7 * SimDuration.dayMs
    ) {
      self.parentProductId = parentProductId
      self.termSku = termSku
      self.periodMs = periodMs
      self.term = term
      self.tier = tier
      self.freeTrialMs = freeTrialMs
      self.gracePeriodMs = gracePeriodMs
    }
  }
}
