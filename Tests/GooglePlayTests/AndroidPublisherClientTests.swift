import AsyncHTTPClient
import Foundation
import GooglePlay
import Logging
import Testing
import TollgateTesting

@Suite("Android Publisher API client", .serialized)
struct AndroidPublisherClientTests {
  static let package = "com.example.app"
  /// Real purchase tokens are long and may hold `.`, `-` and `_`; this one also holds characters a
  /// path must escape.
  static let token = "abc.DEF-ghi_jkl/mno?p=q#r s"

  func withClient(_ body: (AndroidPublisherClient, ScriptedHTTPServer) async throws -> Void) async throws {
    let server = try await ScriptedHTTPServer.start()
    let client = AndroidPublisherClient(
      config: .init(baseURL: server.baseURL + "/", timeout: .seconds(5)), httpClient: .shared,
      accessToken: { "ya29.test-token" }, logger: Logger(label: "test.google"))
    do {
      try await body(client, server)
    } catch {
      await server.stop()
      throw error
    }
    await server.stop()
  }

  static var tokenPath: String {
    "abc.DEF-ghi_jkl%2Fmno%3Fp%3Dq%23r%20s"
  }

  @Test(
    "subscriptionsv2.get: the token is one escaped path segment, the access token a bearer, the body returned as is")
  func subscriptionV2() async throws {
    try await withClient { client, server in
      let path = "/androidpublisher/v3/applications/\(Self.package)/purchases/subscriptionsv2/tokens/\(Self.tokenPath)"
      server.enqueue("GET", path, .json(200, ["kind": "androidpublisher#subscriptionPurchaseV2"]))
      let body = try await client.subscriptionV2(packageName: Self.package, purchaseToken: Self.token)
      #expect(String(decoding: body, as: UTF8.self).contains("subscriptionPurchaseV2"))
      let request = try #require(server.recorded.first)
      #expect(request.path == path)
      #expect(request.headers["authorization"] == "Bearer ya29.test-token")
    }
  }

  @Test("acknowledge (v1 path) and revoke (v2) are POSTs with their JSON bodies")
  func acknowledgeAndRevoke() async throws {
    try await withClient { client, server in
      let app = "/androidpublisher/v3/applications/\(Self.package)/purchases"
      server.enqueue("POST", "\(app)/subscriptions/monthly/tokens/\(Self.tokenPath):acknowledge", .init(status: 204))
      server.enqueue("POST", "\(app)/subscriptionsv2/tokens/\(Self.tokenPath):revoke", .json(200, [:]))
      try await client.acknowledgeSubscription(
        packageName: Self.package, subscriptionId: "monthly", purchaseToken: Self.token, developerPayload: "u-1")
      try await client.revokeSubscriptionV2(packageName: Self.package, purchaseToken: Self.token)
      let recorded = server.recorded
      #expect(recorded.count == 2)
      #expect(recorded[0].jsonBody?["developerPayload"] as? String == "u-1")
      #expect((recorded[1].jsonBody?["revocationContext"] as? [String: Any])?["proratedRefund"] != nil)
    }
  }

  @Test("voidedpurchases.list asks for subscriptions too (type=1), from a start time, page by page")
  func voided() async throws {
    try await withClient { client, server in
      server.enqueue(
        "GET", "/androidpublisher/v3/applications/\(Self.package)/purchases/voidedpurchases",
        .json(200, ["voidedPurchases": []]))
      _ = try await client.voidedPurchases(packageName: Self.package, startTimeMs: 1_700_000_000_000, pageToken: "n/2")
      let query = try #require(server.recorded.first).query
      #expect(query.contains("startTime=1700000000000"))
      #expect(query.contains("type=1"))
      #expect(query.contains("token=n%2F2"))
    }
  }

  @Test(
    "errors are classified as Google documents them",
    arguments: [
      (400, AndroidPublisherError.Code.badRequest, false), (401, .unauthorized, false), (403, .forbidden, false),
      (404, .notFound, false), (410, .gone, false), (429, .rateLimited, true), (500, .serverError, true),
      (503, .serverError, true),
    ])
  func errors(status: Int, code: AndroidPublisherError.Code, retryable: Bool) async throws {
    try await withClient { client, server in
      server.enqueue(
        "GET", "/androidpublisher/v3/applications/\(Self.package)/purchases/subscriptionsv2/tokens/t",
        .json(status, ["error": ["code": status, "message": "m"]], headers: ["Retry-After": "7"]))
      do throws(AndroidPublisherError) {
        _ = try await client.subscriptionV2(packageName: Self.package, purchaseToken: "t")
        Issue.record("HTTP \(status) did not fail")
      } catch {
        #expect(error.code == code)
        #expect(error.isRetryable == retryable)
        #expect(error.httpStatus == status)
        #expect(error.retryAfterMs == 7_000)
      }
    }
  }

  @Test(
    "Google's 400 for a token of another app reads as a possible replay; a new 410 reason still reads as gone",
    .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
  func errorBodies() async throws {
    let mismatch = try Vectors.bytes("google/aporat-subscriptionsv2/api-error-400-token-package-mismatch.json")
    let gone = try Vectors.bytes("google/aporat-subscriptionsv2/api-error-410-unknown-reason.json")
    try await withClient { client, server in
      let path = "/androidpublisher/v3/applications/\(Self.package)/purchases/subscriptionsv2/tokens/t"
      server.enqueue("GET", path, .init(status: 400, body: mismatch))
      server.enqueue("GET", path, .init(status: 410, body: gone))
      do throws(AndroidPublisherError) {
        _ = try await client.subscriptionV2(packageName: Self.package, purchaseToken: "t")
      } catch {
        #expect(error.code == .badRequest)
        #expect(error.isPossibleReplay)
        #expect(error.message == "The purchase token does not match the package name.")
      }
      do throws(AndroidPublisherError) {
        _ = try await client.subscriptionV2(packageName: Self.package, purchaseToken: "t")
      } catch {
        #expect(error.code == .gone)
        #expect(error.reason == "somethingNew")
        #expect(!error.isPossibleReplay)
      }
    }
  }

  @Test("no access token is a credentials error, and nothing is sent")
  func noToken() async throws {
    let server = try await ScriptedHTTPServer.start()
    struct NoKey: Error {}
    let client = AndroidPublisherClient(
      config: .init(baseURL: server.baseURL), httpClient: .shared, accessToken: { throw NoKey() },
      logger: Logger(label: "test.google"))
    do throws(AndroidPublisherError) {
      _ = try await client.subscriptionV2(packageName: Self.package, purchaseToken: "t")
      Issue.record("no failure")
    } catch {
      #expect(error.code == .credentials)
    }
    #expect(server.recorded.isEmpty)
    await server.stop()
  }
}
