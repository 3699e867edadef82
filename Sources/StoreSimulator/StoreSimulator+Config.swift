import Foundation
import TollgateCrypto

extension StoreSimulator {
  /// Everything the simulator needs; `Config.defaults` runs one Apple app with three monthly
  /// subscriptions and a non-consumable. Loaded from JSON with `Config.load(path:)` (every key optional; durations as
  /// `"P1M"`, `"6d"` or milliseconds).
  public struct Config: Sendable {
    public var host: String = "127.0.0.1"
    /// 0 picks a free port (see `StoreSimulator.port`).
    public var port: Int = 0
    /// The virtual clock's start, ms since the epoch; `nil` starts at the real now.
    public var startTimeMs: Int64?
    /// Where `apple-root.cer` (DER) and the signing chain are written and re-read, so the root
    /// a worker pins survives restarts. `nil` keeps everything in memory.
    public var dataDirectory: String?
    public var apple: Apple = .defaults
    /// The simulated Google Play (Android Publisher API, OAuth, JWKS, Pub/Sub pushes).
    public var google: Google = .defaults
    /// The simulated Amazon Appstore (RVS, Real-Time Notifications over SNS).
    public var amazon: Amazon = .defaults
    /// Real-time waits before each retry of a notification the receiver did not accept (2xx).
    public var notificationRetryDelaysMs: [Int64] = [1_000, 4_000, 16_000]
    public var notificationTimeoutMs: Int64 = 5_000

    public init() {}

    public static var defaults: Config { Config() }

    /// Reads a JSON config file (see docs/storesim.md).
    public static func load(path: String) throws(StoreSimulatorError) -> Config {
      do {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try JSONDecoder().decode(ConfigFile.self, from: data).config
      } catch {
        throw StoreSimulatorError(code: .invalidRequest, message: "cannot read config \(path): \(error)", cause: error)
      }
    }
  }

  /// The simulated App Store.
  public struct Apple: Sendable {
    public var apps: [AppleApp] = [AppleApp()]
    public var products: [AppleProduct] = [
      AppleProduct(
        productId: "com.example.premium.monthly", groupId: "21000001", level: 1, periodMs: 30 * SimDuration.dayMs,
        price: 14_990),
      AppleProduct(
        productId: "com.example.monthly", groupId: "21000001", level: 2, periodMs: 30 * SimDuration.dayMs, price: 9_990,
        trialPeriodMs: 7 * SimDuration.dayMs, introPrice: 4_990, introPeriods: 1),
      AppleProduct(
        productId: "com.example.basic.monthly", groupId: "21000001", level: 3, periodMs: 30 * SimDuration.dayMs,
        price: 4_990),
      AppleProduct(nonConsumable: "com.example.lifetime", price: 29_990),
      AppleProduct(nonRenewing: "com.example.season.pass", price: 19_990),
    ]
    /// Billing grace period after a failed renewal; `nil` turns grace off.
    public var gracePeriodMs: Int64? = 6 * SimDuration.dayMs
    /// How long Apple keeps retrying a failed renewal before the subscription expires.
    public var billingRetryWindowMs: Int64 = 60 * SimDuration.dayMs
    /// When retries happen, as offsets from the failed renewal (within the window).
    public var billingRetryScheduleMs: [Int64] = [1, 3, 7, 14, 21, 30, 45].map { $0 * SimDuration.dayMs }
    /// `true`: `/inApps/…` and `/verifyReceipt` serve Production, `/sandbox/…` serves Sandbox,
    /// each answering "not found" (or 21007/21008) for the other's data, as Apple's two hosts
    /// do. `false`: `/inApps/…` serves both.
    public var separateEnvironments: Bool = true
    public var storefront: String = "USA"
    public var storefrontId: String = "143441"
    public var currency: String = "USD"

    public init() {}

    public static var defaults: Apple { Apple() }

    func app(_ bundleId: String) -> AppleApp? { apps.first { $0.bundleId == bundleId } }
    func product(_ productId: String) -> AppleProduct? { products.first { $0.productId == productId } }
  }

  public struct AppleApp: Sendable, Codable {
    public var bundleId: String = "com.example.app"
    public var appAppleId: Int64 = 1_234_567_890
    public var bundleVersion: String = "1"
    /// The app-specific shared secret verifyReceipt checks (`password`); `nil` accepts any.
    public var sharedSecret: String?
    /// The App Store Server API key the bearer tokens must be signed with; `nil` accepts any
    /// well-formed ES256 token for this bundle id (a warning is logged).
    public var apiKey: AppleAPIKey?
    /// Where App Store Server Notifications V2 are posted; `nil` sends none.
    public var notificationURL: String?

    public init(bundleId: String = "com.example.app", appAppleId: Int64 = 1_234_567_890) {
      self.bundleId = bundleId
      self.appAppleId = appAppleId
    }

    private enum CodingKeys: String, CodingKey {
      case bundleId, appAppleId, bundleVersion, sharedSecret, apiKey, notificationURL
    }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      bundleId = try container.decode(String.self, forKey: .bundleId)
      appAppleId = try container.decodeIfPresent(Int64.self, forKey: .appAppleId) ?? 1_234_567_890
      bundleVersion = try container.decodeIfPresent(String.self, forKey: .bundleVersion) ?? "1"
      sharedSecret = try container.decodeIfPresent(String.self, forKey: .sharedSecret)
      apiKey = try container.decodeIfPresent(StoreSimulator.AppleAPIKey.self, forKey: .apiKey)
      notificationURL = try container.decodeIfPresent(String.self, forKey: .notificationURL)
    }
  }

  public struct AppleAPIKey: Sendable, Codable {
    public var keyId: String
    public var issuerId: String
    /// The public half of the `.p8` key, SubjectPublicKeyInfo PEM.
    public let publicKeyPEM: String
    /// `publicKeyPEM` parsed, once (nil when it does not parse: every token is then refused). Per
    /// request it cost OpenSSL's decoder, three times per Apple notification, the simulator's
    /// largest cost in `Benchmarks/worker`.
    public let publicKey: P256PublicKey?

    private enum CodingKeys: String, CodingKey { case keyId, issuerId, publicKeyPEM }

    public init(keyId: String, issuerId: String, publicKeyPEM: String) {
      self.keyId = keyId
      self.issuerId = issuerId
      self.publicKeyPEM = publicKeyPEM
      publicKey = try? P256PublicKey(bytes: Array(publicKeyPEM.utf8))
    }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      self.init(
        keyId: try container.decode(String.self, forKey: .keyId),
        issuerId: try container.decode(String.self, forKey: .issuerId),
        publicKeyPEM: try container.decode(String.self, forKey: .publicKeyPEM))
    }
  }

  /// An in-app purchase the simulated App Store sells: an auto-renewable subscription (in a
  /// group, with a period) or a non-consumable (bought once, kept until refunded).
  public struct AppleProduct: Sendable {
    public var productId: String
    public var type: AppleProductType = .autoRenewable
    /// The subscription group; empty for a non-consumable.
    public var groupId: String
    /// Apple's service level inside the group: 1 is the highest. Moving to a lower number is
    /// an upgrade (immediate), to a higher one a downgrade (at the next renewal).
    public var level: Int
    public var periodMs: Int64
    /// Price in milliunits of the currency.
    public var price: Int64
    public var trialPeriodMs: Int64?
    public var introPrice: Int64?
    /// How many periods the pay-as-you-go introductory price lasts.
    public var introPeriods: Int

    public init(
      productId: String, groupId: String, level: Int = 1, periodMs: Int64, price: Int64 = 9_990,
      trialPeriodMs: Int64? = nil, introPrice: Int64? = nil, introPeriods: Int = 1
    ) {
      self.productId = productId
      self.groupId = groupId
      self.level = level
      self.periodMs = periodMs
      self.price = price
      self.trialPeriodMs = trialPeriodMs
      self.introPrice = introPrice
      self.introPeriods = introPeriods
    }

    /// A non-consumable: no group, no period, no offers.
    public init(nonConsumable productId: String, price: Int64 = 9_990) {
      self.init(productId: productId, groupId: "", periodMs: 0, price: price)
      self.type = .nonConsumable
    }

    /// A non-renewing subscription: sold like a non-consumable, without an expiry (the app says how
    /// long it lasts).
    public init(nonRenewing productId: String, price: Int64 = 9_990) {
      self.init(productId: productId, groupId: "", periodMs: 0, price: price)
      self.type = .nonRenewing
    }
  }
}

/// The JSON shape of a config file: every key optional, durations as text or ms.
private struct ConfigFile: Decodable {
  struct AppleFile: Decodable {
    var apps: [StoreSimulator.AppleApp]?
    var products: [ProductFile]?
    var gracePeriod: DurationValue?
    var gracePeriodEnabled: Bool?
    var billingRetryWindow: DurationValue?
    var billingRetrySchedule: [DurationValue]?
    var separateEnvironments: Bool?
    var storefront: String?
    var currency: String?
  }

  /// A product; `type` is Apple's name ("Auto-Renewable Subscription", the default,
  /// "Non-Consumable" or "Non-Renewing Subscription"). A subscription needs `groupId` and `period`.
  struct ProductFile: Decodable {
    var productId: String
    var type: AppleProductType
    var groupId: String
    var level: Int?
    var period: DurationValue?
    var price: Int64?
    var trialPeriod: DurationValue?
    var introPrice: Int64?
    var introPeriods: Int?

    private enum CodingKeys: String, CodingKey {
      case productId, type, groupId, level, period, price, trialPeriod, introPrice, introPeriods
    }

    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      productId = try container.decode(String.self, forKey: .productId)
      let rawType = try container.decodeIfPresent(String.self, forKey: .type) ?? AppleProductType.autoRenewable.rawValue
      guard let type = AppleProductType(rawValue: rawType) else {
        throw DecodingError.dataCorruptedError(
          forKey: .type, in: container,
          debugDescription:
            "type must be \"Auto-Renewable Subscription\", \"Non-Consumable\" or \"Non-Renewing Subscription\", "
            + "not \(rawType)")
      }
      self.type = type
      level = try container.decodeIfPresent(Int.self, forKey: .level)
      price = try container.decodeIfPresent(Int64.self, forKey: .price)
      trialPeriod = try container.decodeIfPresent(DurationValue.self, forKey: .trialPeriod)
      introPrice = try container.decodeIfPresent(Int64.self, forKey: .introPrice)
      introPeriods = try container.decodeIfPresent(Int.self, forKey: .introPeriods)
      switch type {
      case .autoRenewable:
        groupId = try container.decode(String.self, forKey: .groupId)
        period = try container.decode(DurationValue.self, forKey: .period)
      case .nonConsumable, .nonRenewing:
        groupId = ""
        period = nil
      }
    }

    var product: StoreSimulator.AppleProduct {
      guard type == .autoRenewable else {
        return type == .nonRenewing
          ? StoreSimulator.AppleProduct(nonRenewing: productId, price: price ?? 9_990)
          : StoreSimulator.AppleProduct(nonConsumable: productId, price: price ?? 9_990)
      }
      return StoreSimulator.AppleProduct(
        productId: productId, groupId: groupId, level: level ?? 1, periodMs: period?.ms ?? 0, price: price ?? 9_990,
        trialPeriodMs: trialPeriod?.ms, introPrice: introPrice, introPeriods: introPeriods ?? 1)
    }
  }

  var listen: String?
  var startTimeMs: Int64?
  var dataDirectory: String?
  var notificationRetryDelaysMs: [Int64]?
  var apple: AppleFile?
  var google: GoogleConfigFile?
  var amazon: AmazonConfigFile?

  var config: StoreSimulator.Config {
    var config = StoreSimulator.Config.defaults
    if let listen, let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]) {
      config.host = String(listen[..<colon])
      config.port = port
    }
    config.startTimeMs = startTimeMs
    config.dataDirectory = dataDirectory
    if let notificationRetryDelaysMs { config.notificationRetryDelaysMs = notificationRetryDelaysMs }
    google?.apply(to: &config.google)
    amazon?.apply(to: &config.amazon)
    guard let apple else { return config }
    if let apps = apple.apps { config.apple.apps = apps }
    if let products = apple.products { config.apple.products = products.map(\.product) }
    if let grace = apple.gracePeriod { config.apple.gracePeriodMs = grace.ms }
    if apple.gracePeriodEnabled == false { config.apple.gracePeriodMs = nil }
    if let window = apple.billingRetryWindow { config.apple.billingRetryWindowMs = window.ms }
    if let schedule = apple.billingRetrySchedule { config.apple.billingRetryScheduleMs = schedule.map(\.ms) }
    if let separate = apple.separateEnvironments { config.apple.separateEnvironments = separate }
    if let storefront = apple.storefront { config.apple.storefront = storefront }
    if let currency = apple.currency { config.apple.currency = currency }
    return config
  }
}

/// `"P1M"`, `"6d"` or a number of milliseconds.
struct DurationValue: Decodable {
  var ms: Int64

  init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if let ms = try? container.decode(Int64.self) {
      self.ms = ms
      return
    }
    let text = try container.decode(String.self)
    guard let ms = SimDuration.milliseconds(text) else {
      throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a duration: \(text)")
    }
    self.ms = ms
  }
}
