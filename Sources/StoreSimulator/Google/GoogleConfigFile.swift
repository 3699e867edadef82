/// The `google` section of a config file: every key optional, durations as text or ms.
struct GoogleConfigFile: Decodable {
  struct OfferFile: Decodable {
    var offerId: String?
    var period: DurationValue
    var priceMicros: Int64?
    var periods: Int?
    var offerTags: [String]?
  }

  struct SubscriptionFile: Decodable {
    var productId: String
    var basePlanId: String?
    var period: DurationValue?
    var priceMicros: Int64?
    var freeTrial: OfferFile?
    var introductoryPrice: OfferFile?
    var gracePeriod: DurationValue?
    var accountHold: DurationValue?
    var offerTags: [String]?
  }

  var apps: [StoreSimulator.GoogleApp]?
  var subscriptions: [SubscriptionFile]?
  var oneTimeProducts: [StoreSimulator.GoogleOneTimeProduct]?
  var projectId: String?
  var serviceAccountEmail: String?
  var regionCode: String?
  var currency: String?
  var acknowledgementWindow: DurationValue?
  var pushTokenClock: StoreSimulator.PushTokenClock?
  var jwksMaxAgeSeconds: Int?

  func apply(to google: inout StoreSimulator.Google) {
    if let apps { google.apps = apps }
    if let subscriptions { google.subscriptions = subscriptions.map(Self.product) }
    if let oneTimeProducts { google.oneTimeProducts = oneTimeProducts }
    if let projectId { google.projectId = projectId }
    if let serviceAccountEmail { google.serviceAccountEmail = serviceAccountEmail }
    if let regionCode { google.regionCode = regionCode }
    if let currency { google.currency = currency }
    if let acknowledgementWindow { google.acknowledgementWindowMs = acknowledgementWindow.ms }
    if let pushTokenClock { google.pushTokenClock = pushTokenClock }
    if let jwksMaxAgeSeconds { google.jwksMaxAgeSeconds = jwksMaxAgeSeconds }
  }

  private static func product(_ file: SubscriptionFile) -> StoreSimulator.GoogleSubscriptionProduct {
    let defaults = StoreSimulator.GoogleSubscriptionProduct(productId: file.productId)
    return StoreSimulator.GoogleSubscriptionProduct(
      productId: file.productId, basePlanId: file.basePlanId ?? defaults.basePlanId,
      periodMs: file.period?.ms ?? defaults.periodMs, priceMicros: file.priceMicros ?? defaults.priceMicros,
      freeTrial: file.freeTrial.map { offer($0, id: "free-trial", price: 0) },
      introductoryPrice: file.introductoryPrice.map { offer($0, id: "intro-price", price: defaults.priceMicros / 2) },
      gracePeriodMs: file.gracePeriod?.ms ?? defaults.gracePeriodMs,
      accountHoldMs: file.accountHold?.ms ?? defaults.accountHoldMs, offerTags: file.offerTags ?? [])
  }

  private static func offer(_ file: OfferFile, id: String, price: Int64) -> StoreSimulator.GoogleOffer {
    StoreSimulator.GoogleOffer(
      offerId: file.offerId ?? id, periodMs: file.period.ms, priceMicros: file.priceMicros ?? price,
      periods: file.periods ?? 1, offerTags: file.offerTags ?? [])
  }
}
