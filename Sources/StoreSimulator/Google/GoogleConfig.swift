extension StoreSimulator {
  /// The simulated Google Play: apps, subscription products (one base plan each, with optional
  /// free-trial and introductory offers) and one-time products. `Google.defaults` has one app,
  /// `com.example.android`, three monthly subscriptions and `com.example.lifetime`.
  public struct Google: Sendable {
    public var apps: [GoogleApp] = [GoogleApp()]
    public var subscriptions: [GoogleSubscriptionProduct] = [
      GoogleSubscriptionProduct(
        productId: "com.example.monthly", basePlanId: "monthly", priceMicros: 9_990_000,
        freeTrial: GoogleOffer(offerId: "free-trial", periodMs: 7 * SimDuration.dayMs, priceMicros: 0),
        introductoryPrice: GoogleOffer(offerId: "intro-price", periodMs: 30 * SimDuration.dayMs, priceMicros: 4_990_000)
      ),
      GoogleSubscriptionProduct(
        productId: "com.example.premium.monthly", basePlanId: "monthly", priceMicros: 14_990_000),
      GoogleSubscriptionProduct(productId: "com.example.basic.monthly", basePlanId: "monthly", priceMicros: 4_990_000),
    ]
    public var oneTimeProducts: [GoogleOneTimeProduct] = [
      GoogleOneTimeProduct(productId: "com.example.lifetime", priceMicros: 29_990_000)
    ]
    /// The Google Cloud project of the simulated service account and Pub/Sub subscription.
    public var projectId = "tollgate-sim"
    /// The service account the written key file belongs to (`client_email`).
    public var serviceAccountEmail = "play-developer-api@tollgate-sim.iam.gserviceaccount.com"
    /// `regionCode` of every purchase (ISO 3166-1 alpha-2).
    public var regionCode = "US"
    public var currency = "USD"
    /// How long after a purchase Google refunds and revokes it unless it was acknowledged.
    public var acknowledgementWindowMs: Int64 = 3 * SimDuration.dayMs
    /// Which clock the OIDC tokens of Pub/Sub pushes are minted on (`iat`, `exp`).
    public var pushTokenClock: PushTokenClock = .virtual
    /// `Cache-Control: public, max-age=…` of the JWKS answer.
    public var jwksMaxAgeSeconds = 21_600

    public init() {}

    public static var defaults: Google { Google() }

    func app(_ packageName: String) -> GoogleApp? { apps.first { $0.packageName == packageName } }
    func subscription(_ productId: String) -> GoogleSubscriptionProduct? {
      subscriptions.first { $0.productId == productId }
    }
    func oneTimeProduct(_ productId: String) -> GoogleOneTimeProduct? {
      oneTimeProducts.first { $0.productId == productId }
    }
  }

  /// The clock a Pub/Sub push token's `iat`/`exp` are read from: `virtual` suits a receiver that
  /// follows the simulator's clock (the demo, `--follow-clock`); `real` one that does not.
  public enum PushTokenClock: String, Sendable, Codable {
    case virtual, real
  }

  public struct GoogleApp: Sendable, Codable {
    public var packageName = "com.example.android"
    /// Where Pub/Sub pushes the app's Real-time developer notifications; `nil` sends none.
    public var notificationURL: String?
    /// The push subscription's audience (the OIDC token's `aud`); `nil` uses `notificationURL`,
    /// as Pub/Sub does by default.
    public var pushAudience: String?
    /// The push subscription's service account (the token's `email`).
    public var pushServiceAccount = "rtdn-push@tollgate-sim.iam.gserviceaccount.com"
    /// The Pub/Sub subscription named in every push body.
    public var pubSubSubscription = "projects/tollgate-sim/subscriptions/play-rtdn-push"

    public init(packageName: String = "com.example.android", notificationURL: String? = nil) {
      self.packageName = packageName
      self.notificationURL = notificationURL
    }

    private enum CodingKeys: String, CodingKey {
      case packageName, notificationURL, pushAudience, pushServiceAccount, pubSubSubscription
    }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      packageName = try container.decode(String.self, forKey: .packageName)
      notificationURL = try container.decodeIfPresent(String.self, forKey: .notificationURL)
      pushAudience = try container.decodeIfPresent(String.self, forKey: .pushAudience)
      pushServiceAccount =
        try container.decodeIfPresent(String.self, forKey: .pushServiceAccount) ?? GoogleApp().pushServiceAccount
      pubSubSubscription =
        try container.decodeIfPresent(String.self, forKey: .pubSubSubscription) ?? GoogleApp().pubSubSubscription
    }

    /// The audience the push tokens carry.
    public var effectivePushAudience: String? { pushAudience ?? notificationURL }
  }

  /// A subscription product with one auto-renewing base plan.
  public struct GoogleSubscriptionProduct: Sendable {
    public var productId: String
    public var basePlanId: String
    public var periodMs: Int64
    public var priceMicros: Int64
    public var freeTrial: GoogleOffer?
    public var introductoryPrice: GoogleOffer?
    /// Billing grace period after a failed renewal (access kept); 0 goes straight to account hold.
    public var gracePeriodMs: Int64
    /// Account hold after the grace period (no access, Google keeps retrying); 0 expires instead.
    public var accountHoldMs: Int64
    public var offerTags: [String]

    public init(
      productId: String, basePlanId: String = "monthly", periodMs: Int64 = 30 * SimDuration.dayMs,
      priceMicros: Int64 = 9_990_000, freeTrial: GoogleOffer? = nil, introductoryPrice: GoogleOffer? = nil,
      gracePeriodMs: Int64 = 7 * SimDuration.dayMs, accountHoldMs: Int64 = 30 * SimDuration.dayMs,
      offerTags: [String] = []
    ) {
      self.productId = productId
      self.basePlanId = basePlanId
      self.periodMs = periodMs
      self.priceMicros = priceMicros
      self.freeTrial = freeTrial
      self.introductoryPrice = introductoryPrice
      self.gracePeriodMs = gracePeriodMs
      self.accountHoldMs = accountHoldMs
      self.offerTags = offerTags
    }
  }

  /// An offer on a base plan: a free trial (price 0) or an introductory price, for `periods`
  /// phases of `periodMs` each.
  public struct GoogleOffer: Sendable {
    public var offerId: String
    public var periodMs: Int64
    public var priceMicros: Int64
    public var periods: Int
    public var offerTags: [String]

    public init(offerId: String, periodMs: Int64, priceMicros: Int64, periods: Int = 1, offerTags: [String] = []) {
      self.offerId = offerId
      self.periodMs = periodMs
      self.priceMicros = priceMicros
      self.periods = max(1, periods)
      self.offerTags = offerTags
    }
  }

  public struct GoogleOneTimeProduct: Sendable, Codable {
    public var productId: String
    public var priceMicros: Int64

    public init(productId: String, priceMicros: Int64 = 9_990_000) {
      self.productId = productId
      self.priceMicros = priceMicros
    }
  }
}
