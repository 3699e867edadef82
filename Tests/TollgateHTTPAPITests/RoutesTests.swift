import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TollgateCallers
import TollgateContract
import TollgateHTTPAPI

/// Every route of `HTTPRoutes.all` through the door's router, against `FakeDoorHandler`: the
/// request message the handler got, and the answer as SwiftProtobuf's JSON of its response.
@Suite("HTTP door routes")
struct RoutesTests {
  @Test("IsSubscriber: the proto3 JSON mapping (int64 as a string, defaults left out)")
  func isSubscriber() async throws {
    let handler = FakeDoorHandler()
    try await DoorTesting.withRouter(handler: handler) { client in
      let response = try await client.execute(
        uri: "/v1/users/u1/entitlements/pro", method: .get, headers: DoorTesting.bearer(DoorTesting.readerKey))
      #expect(response.status == .ok)
      #expect(response.headers[.contentType] == "application/json")
      let body = try DoorTesting.object(response.body)
      var expected = Tollgate_V1_IsSubscriberResponse()
      expected.active = true
      expected.expiresAtMs = .max
      expected.productID = "pro"
      expected.storeSubscriptionID = "u1"
      #expect(NSDictionary(dictionary: body) == (try DoorTesting.expected(expected)))
      #expect(body["expiresAtMs"] as? String == "9223372036854775807")
      #expect(body["willRenew"] == nil, "a field at its default is left out")
    }
    #expect(handler.recorded == ["isSubscriber u1 pro"])
  }

  @Test(
    "a user id with /, %, a space, + or non-ASCII reaches the handler as sent, percent-decoded",
    arguments: ["a/b", "50%", "with space", "a+b", "ünïcødé ✓", "%2F", "..", "user?x=1#f"])
  func userIdsArePercentDecoded(userId: String) async throws {
    let handler = FakeDoorHandler()
    try await DoorTesting.withRouter(handler: handler) { client in
      let uri = "/v1/users/\(DoorTesting.segment(userId))/entitlements/\(DoorTesting.segment("pro plus"))"
      let response = try await client.execute(
        uri: uri, method: .get, headers: DoorTesting.bearer(DoorTesting.readerKey))
      #expect(response.status == .ok, "\(uri)")
      #expect(try DoorTesting.object(response.body)["storeSubscriptionId"] as? String == userId)
      let subscription = try await client.execute(
        uri: "/v1/users/\(DoorTesting.segment(userId))", method: .get,
        headers: DoorTesting.bearer(DoorTesting.readerKey))
      #expect(try DoorTesting.object(subscription.body)["userId"] as? String == userId)
    }
    #expect(handler.recorded == ["isSubscriber \(userId) pro plus", "getSubscription \(userId)"])
  }

  @Test("a path parameter that is not valid percent-encoded UTF-8 is refused (400)")
  func invalidPercentEncoding() async throws {
    let handler = FakeDoorHandler()
    try await DoorTesting.withRouter(handler: handler) { client in
      for uri in ["/v1/users/%ZZ", "/v1/users/%FF%FE", "/v1/users/a%2"] {
        let response = try await client.execute(
          uri: uri, method: .get, headers: DoorTesting.bearer(DoorTesting.readerKey))
        #expect(response.status == .badRequest, "\(uri)")
        #expect(try DoorTesting.object(response.body)["code"] as? String == "ERROR_CODE_INVALID_ARGUMENT")
      }
    }
    #expect(handler.recorded.isEmpty)
  }

  @Test("GetSubscription: the user's answer; a user with nothing is 404")
  func getSubscription() async throws {
    try await DoorTesting.withRouter { client in
      let response = try await client.execute(
        uri: "/v1/users/u2", method: .get, headers: DoorTesting.bearer(DoorTesting.readerKey))
      #expect(response.status == .ok)
      let body = try DoorTesting.object(response.body)
      #expect(body["userId"] as? String == "u2")
      #expect(body["evaluatedAtMs"] as? String == "1700000000001")
      let entitlements = body["entitlements"] as? [[String: Any]]
      #expect(entitlements?.first?["entitlement"] as? String == "pro")
      #expect(entitlements?.first?["active"] == nil)

      let none = try await client.execute(
        uri: "/v1/users/nobody", method: .get, headers: DoorTesting.bearer(DoorTesting.readerKey))
      #expect(none.status == .notFound)
      #expect(none.headers[.contentType] == "application/problem+json")
    }
  }

  @Test("SubmitPurchase: 202 with Location while PENDING, 200 once VERIFIED; GetSubmission follows Location")
  func submitPurchase() async throws {
    let handler = FakeDoorHandler()
    try await DoorTesting.withRouter(handler: handler) { client in
      let pending = try await client.execute(
        uri: "/v1/purchases", method: .post, headers: DoorTesting.json(DoorTesting.submitterKey),
        body: ByteBuffer(string: #"{"userId":"u1","receipt":"abc","waitMs":250}"#))
      #expect(pending.status == .accepted)
      #expect(pending.headers[.location] == "/v1/submissions/s%2Fu1%201")
      let body = try DoorTesting.object(pending.body)
      #expect(body["status"] as? String == "SUBMISSION_STATUS_PENDING")
      #expect(body["submissionId"] as? String == "s/u1 1")

      let verified = try await client.execute(
        uri: "/v1/purchases", method: .post, headers: DoorTesting.json(DoorTesting.submitterKey),
        body: ByteBuffer(string: #"{"user_id":"verified1","purchaseToken":"t"}"#))
      #expect(verified.status == .ok)
      #expect(verified.headers[.location] == nil)

      let location = try #require(pending.headers[.location])
      let submission = try await client.execute(
        uri: location, method: .get, headers: DoorTesting.bearer(DoorTesting.submitterKey))
      #expect(submission.status == .ok)
      #expect(try DoorTesting.object(submission.body)["submissionId"] as? String == "s/u1 1")
    }
    #expect(
      handler.recorded == [
        "submitPurchase u1 submitter", "submitPurchase verified1 submitter", "getSubmission s/u1 1 submitter",
      ])
  }

  @Test("SubmitPurchase over the caller's rate: 429 with Retry-After, the handler not asked")
  func submitRate() async throws {
    let handler = FakeDoorHandler()
    // A burst of 1 at 1 a second: calls in a row meet the limit at the second unless the machine
    // stalls past a refill between them (a loaded test run), so call until refused, and count.
    try await DoorTesting.withRouter(handler: handler, gate: DoorTesting.gate(submitBurst: 1)) { client in
      var admitted = 0
      var refused = false
      for _ in 0..<20 where !refused {
        let response = try await client.execute(
          uri: "/v1/purchases", method: .post, headers: DoorTesting.json(DoorTesting.submitterKey),
          body: ByteBuffer(string: #"{"userId":"u1","receipt":"abc"}"#))
        if response.status == .accepted {
          admitted += 1
          continue
        }
        refused = true
        #expect(response.status == .tooManyRequests)
        #expect(response.headers[.retryAfter] == "1")
        #expect(try DoorTesting.object(response.body)["code"] as? String == "ERROR_CODE_RESOURCE_EXHAUSTED")
      }
      #expect(refused)
      #expect(admitted >= 1)
      #expect(handler.recorded == Array(repeating: "submitPurchase u1 submitter", count: admitted))
    }
  }

  @Test("Health: the HealthResponse; 503 with it while NOT_SERVING. /healthz needs no key")
  func health() async throws {
    let handler = FakeDoorHandler()
    try await DoorTesting.withRouter(handler: handler) { client in
      let serving = try await client.execute(
        uri: "/v1/health", method: .get, headers: DoorTesting.bearer(DoorTesting.readerKey))
      #expect(serving.status == .ok)
      let body = try DoorTesting.object(serving.body)
      #expect(body["status"] as? String == "SERVING_STATUS_SERVING")
      #expect(body["indexUsers"] as? String == "3")
      let open = try await client.execute(uri: "/healthz", method: .get)
      #expect(open.status == .ok)
      #expect(String(buffer: open.body) == #"{"status":"SERVING"}"#)

      handler.healthStatus.withLock { $0 = .notServing }
      let down = try await client.execute(
        uri: "/v1/health", method: .get, headers: DoorTesting.bearer(DoorTesting.readerKey))
      #expect(down.status == .serviceUnavailable)
      #expect(down.headers[.retryAfter] == "1")
      #expect(try DoorTesting.object(down.body)["status"] as? String == "SERVING_STATUS_NOT_SERVING")
      let openDown = try await client.execute(uri: "/healthz", method: .get)
      #expect(openDown.status == .serviceUnavailable)
      #expect(String(buffer: openDown.body) == #"{"status":"NOT_SERVING"}"#)
    }
  }

  @Test("every route of the table is answered; each needs a key but /healthz")
  func everyRoute() async throws {
    try await DoorTesting.withRouter { client in
      for route in HTTPRoutes.all {
        let (uri, body) = DoorTesting.sample(route)
        var headers = DoorTesting.json(DoorTesting.opsKey)
        let answered = try await client.execute(uri: uri, method: route.method, headers: headers, body: body)
        #expect(answered.status.code < 300, "\(route.method) \(route.path): \(answered.status)")
        headers[.authorization] = nil
        let anonymous = try await client.execute(uri: uri, method: route.method, headers: headers, body: body)
        #expect(
          anonymous.status == (route.operation == nil ? .ok : .unauthorized), "\(route.method) \(route.path)")
      }
    }
  }

  @Test("an unknown route or method is 404 with a problem document")
  func unknownRoute() async throws {
    try await DoorTesting.withRouter { client in
      for (uri, method) in [("/v1/nothing", HTTPRequest.Method.get), ("/v1/purchases", .get), ("/v2/users/u", .get)] {
        let response = try await client.execute(
          uri: uri, method: method, headers: DoorTesting.bearer(DoorTesting.opsKey))
        #expect(response.status == .notFound, "\(method) \(uri)")
        #expect(response.headers[.contentType] == "application/problem+json")
        #expect(try DoorTesting.object(response.body)["type"] as? String == "urn:tollgate:problem:no-such-route")
      }
    }
  }

  @Test("the routes' JSON (tollgate http-routes --json) lists every route with its scope")
  func routesJSON() throws {
    let rows = try JSONSerialization.jsonObject(with: Data(HTTPRoutes.json.utf8)) as? [[String: Any]] ?? []
    #expect(rows.count == HTTPRoutes.all.count)
    let isSubscriber = rows.first { $0["operationId"] as? String == "isSubscriber" }
    #expect(isSubscriber?["path"] as? String == "/v1/users/{userId}/entitlements/{entitlement}")
    #expect(isSubscriber?["scope"] as? String == "read")
    #expect(rows.first { $0["operationId"] as? String == "healthz" }?["scope"] is NSNull)
    #expect(rows.first { $0["operationId"] as? String == "submitPurchase" }?["scope"] as? String == "submit")
  }
}
