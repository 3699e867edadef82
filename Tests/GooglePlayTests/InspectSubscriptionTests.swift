import Foundation
import GooglePlay
import Testing
import TollgateCore
import TollgateTesting

@Suite(
  "inspect google-subscription: summary and verdict",
  .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
struct InspectSubscriptionTests {
  static let v2 = "aporat-subscriptionsv2/"
  static let v1 = "subscriptions-v1-classytaxi/"

  static func inspect(_ file: String, at: Int64) throws -> GooglePlayInspection.Report {
    try GooglePlayInspection.inspectSubscription(json: Array(try GoogleVectors.data(file)), atMs: at)
  }

  static func summary(_ file: String, at: Int64) throws -> GooglePlaySubscriptionSummary {
    GooglePlaySubscriptionSummary(resource: try GoogleVectors.decode(file), atMs: at)
  }

  @Test("an active, acknowledged subscription: entitled until its expiry, every summary field")
  func active() throws {
    let file = Self.v2 + "subscriptionsv2-active-acknowledged.json"
    let summary = try Self.summary(file, at: ms("2026-01-01T00:00:00Z"))
    #expect(summary.state == .active)
    #expect(summary.entitled)
    #expect(summary.expiresAtMs == ms("2026-10-05T14:32:11.512Z"))
    #expect(summary.autoRenew)
    #expect(summary.acknowledged == true)
    #expect(!summary.testPurchase)
    #expect(summary.environment == .production)
    #expect(summary.linkedPurchaseToken == nil)
    #expect(summary.productIds == ["app.example.subscription"])
    #expect(summary.obfuscatedExternalAccountId == "5E8A3B2C-1D4F-4E6A-9B7C-8D9E0F1A2B3C")
    #expect(try !Self.summary(file, at: ms("2026-12-01T00:00:00Z")).entitled)

    let report = try Self.inspect(file, at: ms("2026-01-01T00:00:00Z"))
    #expect(report.isValid)
    #expect((report.payload as? [String: Any])?["regionCode"] as? String == "US")
    let json = try #require(report.summary)
    #expect(json["state"] as? String == "active")
    #expect(json["expiresAtMs"] as? Int64 == ms("2026-10-05T14:32:11.512Z"))
    #expect(json["linkedPurchaseToken"] is NSNull)
    #expect(
      Set(json.keys) == [
        "state", "entitled", "expiresAtMs", "autoRenew", "acknowledged", "testPurchase", "environment",
        "linkedPurchaseToken", "productIds", "obfuscatedExternalAccountId",
      ])
  }

  @Test("a canceled test purchase with an add-on: sandbox, linked, entitled until the latest item's expiry")
  func canceledTestLinked() throws {
    let file = Self.v2 + "subscriptionsv2-canceled-test-linked-prepaid-addon.json"
    let summary = try Self.summary(file, at: ms("2026-09-10T00:00:00Z"))
    #expect(summary.state == .active)
    #expect(summary.entitled)
    #expect(summary.expiresAtMs == ms("2027-01-01T00:00:00Z"))
    #expect(!summary.autoRenew)
    #expect(summary.acknowledged == false)
    #expect(summary.testPurchase)
    #expect(summary.environment == .sandbox)
    #expect(summary.linkedPurchaseToken == "older-token")
    #expect(summary.productIds == ["app.example.subscription", "app.example.addon"])
    #expect(summary.obfuscatedExternalAccountId == nil)
    #expect(try Self.inspect(file, at: ms("2026-09-10T00:00:00Z")).isValid)
  }

  @Test("account hold: not entitled, before or after the line items' expiry")
  func onHold() throws {
    let file = Self.v2 + "subscriptionsv2-on-hold-installments-free-trial.json"
    for at in [ms("2026-08-15T00:00:00Z"), ms("2026-09-15T00:00:00Z")] {
      let summary = try Self.summary(file, at: at)
      #expect(summary.state == .onHold)
      #expect(!summary.entitled)
      #expect(summary.autoRenew)
      #expect(summary.acknowledged == true)
      #expect(summary.expiresAtMs == ms("2026-09-01T00:00:00Z"))
      #expect(try Self.inspect(file, at: at).isValid)
    }
  }

  @Test("partial resources still get a summary; those Tollgate grants nothing for are invalid, and say why")
  func partials() throws {
    let at = ms("2026-02-01T00:00:00Z")
    let withoutExpiry = try Self.inspect(
      Self.v2 + "subscriptionsv2-partial-active-lineitems-without-expiry.json", at: at)
    #expect(withoutExpiry.problem?.code == "entitling_state_without_expiry")
    #expect(withoutExpiry.summary?["productIds"] as? [String] == ["a", "b"])
    #expect(withoutExpiry.summary?["entitled"] as? Bool == false)
    #expect(withoutExpiry.summary?["expiresAtMs"] is NSNull)

    let grace = try Self.inspect(Self.v2 + "subscriptionsv2-partial-in-grace-renewal-declined.json", at: at)
    #expect(grace.problem?.code == "entitling_state_without_expiry")
    #expect(grace.summary?["entitled"] as? Bool == false)

    let unknown = try Self.inspect(Self.v2 + "subscriptionsv2-partial-unknown-state.json", at: at)
    #expect(unknown.problem?.code == "unknown_subscription_state")
    #expect(unknown.problem?.message.contains("SUBSCRIPTION_STATE_FROM_THE_FUTURE") == true)
    #expect(unknown.summary?["acknowledged"] is NSNull)
    #expect(unknown.summary?["entitled"] as? Bool == false)

    let mixed = try Self.summary(Self.v2 + "subscriptionsv2-partial-mixed-expiry-lineitems.json", at: at)
    #expect(mixed.expiresAtMs == ms("2026-06-01T00:00:00Z"))
    #expect(mixed.productIds == ["undated", "early", "late", "middle"])
    #expect(mixed.entitled)
    #expect(try Self.inspect(Self.v2 + "subscriptionsv2-partial-mixed-expiry-lineitems.json", at: at).isValid)

    let paused = try Self.summary(Self.v2 + "subscriptionsv2-partial-paused-auto-resume.json", at: at)
    #expect(!paused.entitled)
    #expect(paused.state == .paused)  // the state it names, though no line item says more
    #expect(!paused.testPurchase)  // "testPurchase": null is no test purchase
    #expect(try Self.inspect(Self.v2 + "subscriptionsv2-partial-paused-auto-resume.json", at: at).isValid)
  }

  @Test("v1 resources: active, free trial, account hold and a test purchase, by their kind")
  func legacy() throws {
    let now: Int64 = 1_700_000_000_000
    func summary(_ name: String, at: Int64 = now) throws -> [String: Any] {
      let report = try Self.inspect(Self.v1 + "purchases-subscriptions-v1-\(name).json", at: at)
      #expect(report.isValid, "\(name)")
      return try #require(report.summary)
    }
    let active = try summary("active")
    #expect(active["state"] as? String == "active")
    #expect(active["entitled"] as? Bool == true)
    #expect(active["expiresAtMs"] as? Int64 == 1_700_000_010_000)
    #expect(active["autoRenew"] as? Bool == true)
    #expect(active["acknowledged"] is NSNull)
    #expect(active["productIds"] as? [String] == [])
    #expect(active["environment"] as? String == "production")
    #expect(try summary("active", at: now + 20_000)["state"] as? String == "expired")
    #expect(try summary("free-trial")["state"] as? String == "trial")
    let hold = try summary("account-hold")
    #expect(hold["state"] as? String == "on_hold")
    #expect(hold["entitled"] as? Bool == false)
    let test = try summary("test-purchase")
    #expect(test["testPurchase"] as? Bool == true)
    #expect(test["environment"] as? String == "sandbox")
  }

  @Test("a v1 resource in grace, canceled, or paused, by its fields (no kind)")
  func legacyDerivedStates() throws {
    let now: Int64 = 1_700_000_000_000
    var resource = SubscriptionPurchase()
    resource.startTimeMillis = now - 86_400_000
    resource.expiryTimeMillis = now + 3_600_000
    resource.autoRenewing = true
    resource.paymentState = 0
    #expect(GooglePlaySubscriptionSummary(legacy: resource, atMs: now).state == .gracePeriod)
    #expect(GooglePlaySubscriptionSummary(legacy: resource, atMs: now).entitled)
    resource.paymentState = 1
    resource.autoRenewing = false
    resource.cancelReason = 0
    #expect(resource.derivedState(atMs: now) == .canceled)
    #expect(GooglePlaySubscriptionSummary(legacy: resource, atMs: now).entitled)
    resource.cancelReason = nil
    resource.autoRenewing = true
    resource.autoResumeTimeMillis = now + 7 * 86_400_000
    #expect(GooglePlaySubscriptionSummary(legacy: resource, atMs: now + 7_200_000).state == .paused)

    let report = try GooglePlayInspection.inspectSubscription(
      json: Array(#"{"startTimeMillis": "1", "autoRenewing": true}"#.utf8), atMs: now)
    #expect(report.problem?.code == "entitling_state_without_expiry")
    #expect(report.summary?["entitled"] as? Bool == false)
  }

  @Test("Google's error body, another resource, a resource that does not decode: invalid; not JSON: unreadable")
  func notSubscriptions() throws {
    let at = ms("2026-02-01T00:00:00Z")
    let apiError = try Self.inspect(Self.v2 + "api-error-400-token-package-mismatch.json", at: at)
    #expect(apiError.problem?.code == "api_error")
    #expect(apiError.problem?.message.contains("does not match the package name") == true)
    #expect(apiError.summary == nil)
    let product = try Self.inspect("aporat-voided-products/products-get-v1-purchased-acknowledged.json", at: at)
    #expect(product.problem?.code == "not_a_subscription")
    let malformed = try GooglePlayInspection.inspectSubscription(
      json: Array(#"{"subscriptionState": "SUBSCRIPTION_STATE_ACTIVE", "startTime": "yesterday"}"#.utf8), atMs: at)
    #expect(malformed.problem?.code == "malformed_resource")
    #expect(malformed.problem?.message.contains("startTime") == true)
    #expect(malformed.payload != nil)
    for text in ["not json", "[1, 2]", "\"a string\""] {
      #expect(throws: GooglePlayInspection.Unreadable.self) {
        try GooglePlayInspection.inspectSubscription(json: Array(text.utf8), atMs: at)
      }
    }
  }

  @Test("the document: verdict, error, message, payload and summary, as JSON")
  func document() throws {
    let report = try Self.inspect(Self.v2 + "subscriptionsv2-partial-unknown-state.json", at: 0)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(report.json.utf8)) as? [String: Any])
    #expect(object["verdict"] as? String == "invalid")
    #expect(object["error"] as? String == "unknown_subscription_state")
    #expect(object["message"] is String)
    #expect((object["payload"] as? [String: Any])?["acknowledgementState"] as? String == "WHO_KNOWS")
    #expect(object["summary"] is [String: Any])
  }
}
