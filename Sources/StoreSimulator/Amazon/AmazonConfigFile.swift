/// The `amazon` section of a config file: every key optional, durations as text or ms.
struct AmazonConfigFile: Decodable {
  struct SubscriptionFile: Decodable {
    var parentProductId: String
    var termSku: String
    var period: DurationValue?
    var term: String?
    var tier: Int?
    var freeTrial: DurationValue?
    var gracePeriod: DurationValue?
  }

  var apps: [StoreSimulator.AmazonApp]?
  var subscriptions: [SubscriptionFile]?
  var entitlements: [String]?
  var consumables: [String]?
  var newReceiptPerTerm: Bool?
  var billingRetryAfterGrace: DurationValue?
  var receiptRetention: DurationValue?
  var signatureVersion: Int?
  var sandboxChecksSharedSecret: Bool?
  var countryCode: String?

  func apply(to amazon: inout StoreSimulator.Amazon) {
    if let apps { amazon.apps = apps }
    if let subscriptions {
      amazon.subscriptions = subscriptions.map { file in
        StoreSimulator.AmazonSubscriptionProduct(
          parentProductId: file.parentProductId, termSku: file.termSku,
          periodMs: file.period?.ms ?? 30 * SimDuration.dayMs, term: file.term ?? "1 Month", tier: file.tier ?? 1,
          freeTrialMs: file.freeTrial?.ms, gracePeriodMs: file.gracePeriod?.ms ?? 7 * SimDuration.dayMs)
      }
    }
    if let entitlements { amazon.entitlements = entitlements }
    if let consumables { amazon.consumables = consumables }
    if let newReceiptPerTerm { amazon.newReceiptPerTerm = newReceiptPerTerm }
    if let billingRetryAfterGrace { amazon.billingRetryAfterGraceMs = billingRetryAfterGrace.ms }
    if let receiptRetention { amazon.receiptRetentionMs = receiptRetention.ms }
    if let signatureVersion { amazon.signatureVersion = signatureVersion }
    if let sandboxChecksSharedSecret { amazon.sandboxChecksSharedSecret = sandboxChecksSharedSecret }
    if let countryCode { amazon.countryCode = countryCode }
  }
}
