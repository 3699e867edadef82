import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TollgateCallers
import TollgateContract
import TollgateHTTPAPI

/// RFC 9457 problem documents: design 3.3's HTTP column, for the handler's errors and the gate's
/// refusals.
@Suite("HTTP door problem documents")
struct ProblemDocumentTests {
  @Test(
    "each ErrorCode has its status, type and headers",
    arguments: [
      (Tollgate_V1_ErrorCode.invalidArgument, 400, "invalid-argument"), (.notFound, 404, "not-found"),
      (.unauthenticated, 401, "unauthenticated"), (.permissionDenied, 403, "permission-denied"),
      (.resourceExhausted, 429, "resource-exhausted"), (.unavailable, 503, "unavailable"),
      (.deadlineExceeded, 504, "deadline-exceeded"), (.internal, 500, "internal"), (.unspecified, 500, "internal"),
    ])
  func table(code: Tollgate_V1_ErrorCode, status: Int, kind: String) throws {
    let problem = ProblemDocument(Tollgate_V1_Error(code, "the message"))
    #expect(problem.status.code == status)
    #expect(problem.type == "urn:tollgate:problem:\(kind)")
    let headers = problem.headers
    #expect(headers[.contentType] == "application/problem+json")
    #expect((headers[.wwwAuthenticate] != nil) == (status == 401))
    #expect(headers[.wwwAuthenticate].map { $0 == #"Bearer realm="tollgate""# } ?? true)
    #expect((headers[.retryAfter] != nil) == (status == 429 || status == 503))
    let body = try JSONSerialization.jsonObject(with: problem.json) as? [String: Any] ?? [:]
    #expect(body["type"] as? String == problem.type)
    #expect(body["status"] as? Int == status)
    #expect(body["title"] as? String == problem.title)
    #expect(body["code"] as? String == (code == .unspecified ? "ERROR_CODE_UNSPECIFIED" : problem.code))
    // A bug's message may name internals: never shown.
    #expect(body["detail"] as? String == (status == 500 ? "internal error" : "the message"))
  }

  @Test("a code this build does not know (a bug): 500 with ERROR_CODE_INTERNAL, a name openapi.yaml's code lists")
  func unrecognizedCode() throws {
    let problem = ProblemDocument(Tollgate_V1_Error(.UNRECOGNIZED(42), "the message"))
    #expect(problem.status.code == 500)
    #expect(problem.code == "ERROR_CODE_INTERNAL")
    #expect(problem.detail == "internal error")
  }

  @Test("the handler's errors reach the caller as problem documents, a 500 without its message")
  func handlerErrors() async throws {
    try await DoorTesting.withRouter { client in
      for (user, status) in [("bad", 400), ("nobody", 404), ("down", 503), ("boom", 500)] {
        let response = try await client.execute(
          uri: "/v1/users/\(user)/entitlements/pro", method: .get, headers: DoorTesting.bearer(DoorTesting.readerKey))
        #expect(response.status.code == status, "\(user)")
        #expect(response.headers[.contentType] == "application/problem+json")
        let body = try DoorTesting.object(response.body)
        #expect(body["status"] as? Int == status)
        #expect(!String(buffer: response.body).contains("secret"))
      }
    }
  }

  @Test("no key, a malformed key, a wrong key: 401 with WWW-Authenticate; the handler is not asked")
  func unauthenticated() async throws {
    let handler = FakeDoorHandler()
    try await DoorTesting.withRouter(handler: handler) { client in
      let cases: [HTTPFields] = [
        [:], [.authorization: "Basic dXNlcjpwYXNz"], [.authorization: "Bearer "], [.authorization: "Bearer tgk_wrong"],
        [.authorization: DoorTesting.readerKey],
      ]
      for headers in cases {
        let response = try await client.execute(uri: "/v1/users/u1/entitlements/pro", method: .get, headers: headers)
        #expect(response.status == .unauthorized, "\(headers)")
        #expect(response.headers[.wwwAuthenticate] == #"Bearer realm="tollgate""#)
        #expect(response.headers[.contentType] == "application/problem+json")
        let body = try DoorTesting.object(response.body)
        #expect(body["code"] as? String == "ERROR_CODE_UNAUTHENTICATED")
        #expect(body["type"] as? String == "urn:tollgate:problem:unauthenticated")
      }
    }
    #expect(handler.recorded.isEmpty)
  }

  @Test("a caller without the route's scope: 403 naming the caller and the scope")
  func permissionDenied() async throws {
    let handler = FakeDoorHandler()
    try await DoorTesting.withRouter(handler: handler) { client in
      let submit = try await client.execute(
        uri: "/v1/purchases", method: .post, headers: DoorTesting.json(DoorTesting.readerKey),
        body: ByteBuffer(string: #"{"userId":"u1","receipt":"abc"}"#))
      #expect(submit.status == .forbidden)
      let body = try DoorTesting.object(submit.body)
      #expect(body["code"] as? String == "ERROR_CODE_PERMISSION_DENIED")
      #expect(body["detail"] as? String == "caller reader may not call SubmitPurchase: it needs the submit scope")
      let submission = try await client.execute(
        uri: "/v1/submissions/s1", method: .get, headers: DoorTesting.bearer(DoorTesting.readerKey))
      #expect(submission.status == .forbidden)
    }
    #expect(handler.recorded.isEmpty)
  }

  @Test("a source out of failed authentications: 429 with Retry-After, even with a good key")
  func sourceBlocked() async throws {
    try await DoorTesting.withRouter(gate: DoorTesting.gate(failedAuthenticationBurst: 2)) { client in
      for _ in 0..<2 {
        let wrong = try await client.execute(
          uri: "/v1/users/u1", method: .get, headers: DoorTesting.bearer("tgk_wrong"))
        #expect(wrong.status == .unauthorized)
      }
      let blocked = try await client.execute(
        uri: "/v1/users/u1", method: .get, headers: DoorTesting.bearer(DoorTesting.readerKey))
      #expect(blocked.status == .tooManyRequests)
      let seconds = try #require(blocked.headers[.retryAfter].flatMap { Int($0) })
      #expect(seconds >= 1)
      #expect(try DoorTesting.object(blocked.body)["code"] as? String == "ERROR_CODE_RESOURCE_EXHAUSTED")
      // /healthz needs no key: the block does not reach it.
      #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
    }
  }

  @Test("a server without callers: every route is open to anyone")
  func openAccess() async throws {
    let handler = FakeDoorHandler()
    let gate = CallerGate(
      access: .open, authenticationLimiter: AuthenticationLimiter(perMinute: 1, burst: 1, maximumSources: 1),
      submitLimiter: SubmitRateLimiter(perSecond: 1, burst: 10))
    try await DoorTesting.withRouter(handler: handler, gate: gate) { client in
      let response = try await client.execute(
        uri: "/v1/purchases", method: .post, headers: [.contentType: "application/json"],
        body: ByteBuffer(string: #"{"userId":"u1","receipt":"abc"}"#))
      #expect(response.status == .accepted)
    }
    #expect(handler.recorded == ["submitPurchase u1 -"])
  }
}
