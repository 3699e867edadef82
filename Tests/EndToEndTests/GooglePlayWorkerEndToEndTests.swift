import Foundation
import Logging
import Testing
import TollgateClient
import TollgateCore
import TollgateSQLite
import TollgateService
import TollgateStorage
import TollgateTesting

/// `tollgate worker` as a real process with only a Google Play app configured, against a scripted
/// Google over HTTP (its token endpoint and the Android Publisher API): a purchase token
/// submitted through the service is verified and entitles its buyer.
@Suite(
  "Google Play through the worker", .serialized, .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage))
)
struct GooglePlayWorkerEndToEndTests {
  static let package = "com.example.app"

  static func rfc3339(_ ms: Int64) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1_000))
  }

  @Test("a worker with only Google configured verifies a submitted purchase token; a 404 keeps it pending")
  func submitted() async throws {
    let dir = try TemporaryDirectory(prefix: "tollgate-google")
    defer { dir.remove() }
    let google = try await ScriptedHTTPServer.start()
    let database = dir.file("tollgate.sqlite")
    let config: [String: Any] = [
      "apps": [["id": "android", "store": "google_play", "packageName": Self.package]],
      "entitlements": [["id": "premium"]],
      "products": [["productId": "monthly", "store": "google_play", "entitlements": ["premium"]]],
      "worker": [
        "listen": "127.0.0.1:0", "adminListen": "127.0.0.1:0", "database": database, "pollMs": 5, "backoffBaseMs": 50,
        "backoffMaxMs": 200,
      ],
      "googlePlay": [
        [
          "packageName": Self.package, "serviceAccountKeyEnv": "GOOGLE_KEY", "pushAudience": "tollgate",
          "pushServiceAccount": "rtdn-push@example-project.iam.gserviceaccount.com", "apiBaseURL": google.baseURL,
          "tokenURI": google.baseURL + "/token",
        ]
      ],
    ]
    try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: dir.file("config.json")))
    let key = try Vectors.string("google/aporat-oauth/test-service-account-key.json")
    let worker = try ChildProcess(
      ["worker", "--config", dir.file("config.json"), "--create", "--log-level", "warning"],
      environment: ["GOOGLE_KEY": key])
    defer { worker.terminate() }
    let started = await worker.waitForLine(containing: "notifications on")
    #expect(started != nil, "the worker did not start with only Google configured")

    let token = try Vectors.bytes("google/aporat-oauth/oauth2-token-response.json")
    google.enqueue("POST", "/token", .init(status: 200, headers: ["Content-Type": "application/json"], body: token))
    let api = "/androidpublisher/v3/applications/\(Self.package)/purchases"
    let now = SystemClock.nowMs()
    let resource: [String: Any] = [
      "kind": "androidpublisher#subscriptionPurchaseV2", "startTime": Self.rfc3339(now - 60_000),
      "subscriptionState": "SUBSCRIPTION_STATE_ACTIVE", "latestOrderId": "GPA.1",
      "acknowledgementState": "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED",
      "lineItems": [
        [
          "productId": "monthly", "expiryTime": Self.rfc3339(now + 30 * 86_400_000),
          "autoRenewingPlan": ["autoRenewEnabled": true], "latestSuccessfulOrderId": "GPA.1",
        ]
      ],
    ]
    google.enqueue("GET", "\(api)/subscriptionsv2/tokens/tok-alice", .json(200, resource))
    google.enqueue("GET", "\(api)/subscriptionsv2/tokens/tok-unknown", .json(404, ["error": ["code": 404]]))
    google.enqueue("GET", "\(api)/productsv2/tokens/tok-unknown", .json(404, ["error": ["code": 404]]))

    let storage = try SQLiteEntitlementStorage(path: database, nowMs: now)
    let server = try await EntitlementServer.start(
      config: .init(host: "127.0.0.1", port: 0), storage: storage, nowMs: SystemClock.nowMs,
      logger: Logger(label: "google.serve"))
    async let serving: Void = server.run()
    let client = TollgateClient(host: "127.0.0.1", port: server.port)

    var submit = Tollgate_V1_SubmitPurchaseRequest()
    submit.userID = "alice"
    submit.store = .googlePlay
    submit.purchaseToken = "tok-alice"
    submit.productID = "monthly"
    submit.waitMs = 8_000
    let verified = try await client.submitPurchase(submit, timeout: .seconds(10))
    #expect(verified.status == .verified, "\(verified.rejectionReason) \(verified.error.message)")
    let answer = try await client.isSubscriber(userId: "alice", entitlement: "premium")
    #expect(answer.active)
    #expect(answer.store == .googlePlay)
    #expect(answer.storeSubscriptionID == "tok-alice")

    submit.userID = "bob"
    submit.purchaseToken = "tok-unknown"
    submit.waitMs = 500
    let pending = try await client.submitPurchase(submit, timeout: .seconds(10))
    #expect(pending.status == .pending, "a purchase Google does not know yet is not rejected at once")

    await client.close()
    await server.shutdown()
    try await serving
    await google.stop()
  }
}
