import AsyncHTTPClient
import Foundation
import GooglePlay
import GooglePlayGateway
import Logging
import Testing
import TollgateCore
import TollgateTesting
import TollgateWorker

/// The Google Play gateway against a scripted Google (token endpoint and Android Publisher API
/// over real HTTP), with the public vectors as Google's answers.
@Suite("Google Play gateway", .serialized, .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
struct GooglePlayGatewayTests {
  static let package = "com.example.app"
  static let api = "/androidpublisher/v3/applications/com.example.app/purchases"
  /// 2026-01-01: inside the vector's active period (2025-10-05 → 2026-10-05).
  static let now: Int64 = 1_767_225_600_000

  func withGateway(_ body: (GooglePlayGateway, ScriptedHTTPServer) async throws -> Void) async throws {
    let server = try await ScriptedHTTPServer.start()
    var app = GooglePlayAppSettings(packageName: Self.package)
    app.serviceAccountKeyEnv = "GOOGLE_KEY"
    app.pushAudience = "tollgate"
    app.apiBaseURL = server.baseURL
    app.tokenURI = server.baseURL + "/token"
    let key = try Vectors.string("google/aporat-oauth/test-service-account-key.json")
    let gateway = try GooglePlayGateway(
      settings: GooglePlaySettings(apps: [app]), environment: ["GOOGLE_KEY": key], httpClient: .shared,
      concurrency: 2, nowMs: { Self.now }, logger: Logger(label: "test.google"))
    do {
      try await body(gateway, server)
    } catch {
      await server.stop()
      throw error
    }
    await server.stop()
  }

  func tokenReply() throws -> ScriptedHTTPServer.Reply {
    .init(
      status: 200, headers: ["Content-Type": "application/json"],
      body: try Vectors.bytes("google/aporat-oauth/oauth2-token-response.json"))
  }

  @Test("a submitted purchase token is read from subscriptionsv2 and mapped: active, bound by the obfuscated account")
  func activeSubscription() async throws {
    try await withGateway { gateway, server in
      server.enqueue("POST", "/token", try tokenReply())
      server.enqueue(
        "GET", "\(Self.api)/subscriptionsv2/tokens/tok-1",
        .init(
          status: 200, body: try Vectors.bytes("google/aporat-subscriptionsv2/subscriptionsv2-active-acknowledged.json")
        ))
      let reference = try await gateway.identify(
        PurchaseSubmission(userId: "alice", store: .googlePlay, purchaseToken: "tok-1"))
      #expect(reference.appId == Self.package)
      let chain = try await gateway.fetchChain(reference)
      #expect(chain.store == .googlePlay)
      #expect(chain.purchaseId == "tok-1")
      #expect(chain.evidence.source == "android_publisher_api")
      #expect(chain.evidence.newestSignedAtMs == nil)
      let evaluation = SubscriptionLifecycle.evaluate(chain.history, at: Self.now)
      #expect(evaluation.state == .active)
      #expect(server.recorded.last?.headers["authorization"] == "Bearer ya29.test-access-token")
    }
  }

  @Test("Google's answers classified: 404 on both resources is not found, 401 the operator's, 503 transient")
  func failures() async throws {
    try await withGateway { gateway, server in
      server.enqueue("POST", "/token", try tokenReply())
      let reference = ChainReference(
        store: .googlePlay, appId: Self.package, lookupId: "t", purchaseId: "t", environment: nil)
      server.enqueue("GET", "\(Self.api)/subscriptionsv2/tokens/t", .json(404, ["error": ["code": 404]]))
      server.enqueue("GET", "\(Self.api)/productsv2/tokens/t", .json(404, ["error": ["code": 404]]))
      server.enqueue("GET", "\(Self.api)/subscriptionsv2/tokens/t", .json(401, ["error": ["code": 401]]))
      server.enqueue("GET", "\(Self.api)/subscriptionsv2/tokens/t", .json(503, ["error": ["code": 503]]))
      for expected in [StoreFailure.Kind.notFound, .needsOperator, .transient] {
        do throws(StoreFailure) {
          _ = try await gateway.fetchChain(reference)
          Issue.record("no failure; expected \(expected)")
        } catch {
          #expect(error.kind == expected, "\(error)")
        }
      }
    }
  }

  @Test("a test purchase is refused unless the app allows test purchases")
  func testPurchaseRefused() async throws {
    try await withGateway { gateway, server in
      server.enqueue("POST", "/token", try tokenReply())
      server.enqueue(
        "GET", "\(Self.api)/subscriptionsv2/tokens/tok-test",
        .init(
          status: 200,
          body: try Vectors.bytes(
            "google/aporat-subscriptionsv2/subscriptionsv2-canceled-test-linked-prepaid-addon.json")))
      let reference = ChainReference(
        store: .googlePlay, appId: Self.package, lookupId: "tok-test", purchaseId: "tok-test", environment: nil)
      do throws(StoreFailure) {
        _ = try await gateway.fetchChain(reference)
        Issue.record("a test purchase was accepted")
      } catch {
        #expect(error.kind == .final)
        #expect(error.message.contains("allowTestPurchases is off"))
      }
    }
  }

  @Test("a submission without a token, or for an unknown package, is refused by name")
  func badSubmissions() async throws {
    try await withGateway { gateway, _ in
      for (submission, text) in [
        (PurchaseSubmission(userId: "a", store: .googlePlay), "purchase_token"),
        (PurchaseSubmission(userId: "a", store: .googlePlay, purchaseToken: "t", appId: "com.other"), "com.other"),
      ] {
        do throws(StoreFailure) {
          _ = try await gateway.identify(submission)
          Issue.record("accepted \(submission)")
        } catch {
          #expect(error.kind == .final)
          #expect(error.message.contains(text))
        }
      }
    }
  }
}
