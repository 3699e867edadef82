import AsyncHTTPClient
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import NIOCore
import Testing
import TollgateCallers
import TollgateContract
import TollgateGRPC
import TollgateHTTPAPI
import TollgateTesting

/// Issue 28, tried as a hostile caller would against `tollgate serve` as a process with its gRPC and
/// HTTP doors: keys without `admin` on every admin RPC and route, another caller's submission on
/// each door, and a failed-key budget spent on one door that must be spent on the others (the
/// fast port included). These held when written; they stay as cheap regression tests.
@Suite("tollgate serve's doors: scopes, other callers' submissions and the shared failed-key budget", .serialized)
struct DoorAttackCallersEndToEndTests {
  static let keys = [
    "reader": "tgk_doors_reader_0123456789abcdef", "backend": "tgk_doors_backend_0123456789abcdef",
    "other": "tgk_doors_other_0123456789abcdef00", "ops": "tgk_doors_ops_0123456789abcdef0000",
  ]
  static let scopes = [
    "reader": ["read"], "backend": ["read", "submit"], "other": ["read", "submit"], "ops": ["admin"],
  ]

  typealias Client = Tollgate_V1_Entitlements.Client<HTTP2ClientTransport.Posix>

  static func bearer(_ caller: String) -> Metadata { ["authorization": "Bearer \(keys[caller] ?? caller)"] }

  /// The gRPC status code of `call`, `.ok` when it succeeded.
  static func code(_ call: () async throws -> Void) async -> RPCError.Code? {
    do {
      try await call()
      return nil
    } catch let error as RPCError {
      return error.code
    } catch {
      return .unknown
    }
  }

  static func http(_ method: String, _ port: Int, _ path: String, key: String?, json: String? = nil) async throws
    -> (status: Int, body: String)
  {
    var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
    request.method = .init(rawValue: method)
    if let key { request.headers.add(name: "authorization", value: "Bearer \(key)") }
    if let json {
      request.headers.add(name: "content-type", value: "application/json")
      request.body = .bytes(ByteBuffer(string: json))
    }
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
    let body = try await response.body.collect(upTo: 1 << 20)
    return (Int(response.status.code), String(buffer: body))
  }

  @Test("admin calls without admin, another caller's submission, and one failed-key budget for three doors")
  func callers() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let callers = Self.keys.keys.sorted().map { name in
      ["name": name, "keySha256": ServeAccessEndToEndTests.hex(Self.keys[name]!), "scopes": Self.scopes[name]!]
        as [String: Any]
    }
    let server = try await DoorAttackServe.start(
      [
        "listen": "127.0.0.1:0", "database": dir.file("tollgate.sqlite"), "callers": callers,
        "grpc": ["listen": "127.0.0.1:0"], "http": ["listen": "127.0.0.1:0"],
      ], in: dir)
    defer { server.process.terminate() }
    let transport = try HTTP2ClientTransport.Posix(
      target: .ipv4(address: "127.0.0.1", port: server.grpc), transportSecurity: .plaintext)
    try await withGRPCClient(transport: transport) { grpc in
      let client = Client(wrapping: grpc)
      try await Self.adminScopes(client, server)
      try await Self.othersSubmission(client, server)
      try await Self.sharedBudget(client, server)
    }
  }

  /// Every admin RPC and every admin route refuses read and submit keys (PERMISSION_DENIED / 403);
  /// the routes come from the door's own table, so a route added later is tried too.
  static func adminScopes(_ client: Client, _ server: DoorAttackServe) async throws {
    for caller in ["reader", "backend"] {
      let key = bearer(caller)
      let calls: [(String, () async throws -> Void)] = [
        (
          "LookUp",
          {
            _ = try await client.lookUp(
              Tollgate_V1_LookUpRequest.with { $0.identifier = "2000000000000001" }, metadata: key)
          }
        ),
        (
          "GetTimeline",
          {
            _ = try await client.getTimeline(
              Tollgate_V1_GetTimelineRequest.with { $0.userID = "victim" }, metadata: key)
          }
        ),
        (
          "Explain",
          {
            _ = try await client.explain(
              Tollgate_V1_ExplainRequest.with {
                $0.userID = "victim"
                $0.entitlement = "premium"
              }, metadata: key)
          }
        ),
        (
          "Grant",
          {
            _ = try await client.grant(
              Tollgate_V1_GrantRequest.with {
                $0.userID = "me"
                $0.entitlement = "premium"
                $0.until = "2099-01-01T00:00:00Z"
              }, metadata: key)
          }
        ),
        (
          "Revoke",
          {
            _ = try await client.revoke(
              Tollgate_V1_RevokeRequest.with {
                $0.userID = "victim"
                $0.entitlement = "premium"
              }, metadata: key)
          }
        ),
        (
          "Reverify",
          { _ = try await client.reverify(Tollgate_V1_ReverifyRequest.with { $0.userID = "victim" }, metadata: key) }
        ),
        (
          "EraseUser",
          { _ = try await client.eraseUser(Tollgate_V1_EraseUserRequest.with { $0.userID = "victim" }, metadata: key) }
        ),
      ]
      for (name, call) in calls {
        #expect(await code(call) == .permissionDenied, "gRPC \(name) with \(caller)'s key")
      }
      for route in HTTPRoutes.all where route.operation?.requiredScope == .admin {
        let path =
          route.path.replacingOccurrences(of: "{userId}", with: "victim")
          .replacingOccurrences(of: "{entitlement}", with: "premium")
          + (route.path == "/v1/lookup" ? "?identifier=1" : "")
        let json = route.method == .post ? #"{"entitlement":"premium","until":"2099-01-01T00:00:00Z"}"# : nil
        let answer = try await http(route.method.rawValue, server.http, path, key: keys[caller], json: json)
        #expect(answer.status == 403, "HTTP \(route.method) \(route.path) with \(caller)'s key: \(answer.body)")
      }
    }
  }

  /// A submission is its maker's (and admin's): another submit caller gets NOT_FOUND / 404 on each door.
  static func othersSubmission(_ client: Client, _ server: DoorAttackServe) async throws {
    var submit = Tollgate_V1_SubmitPurchaseRequest()
    submit.userID = "victim"
    submit.store = .appStore
    submit.receipt = "2000000123456789"
    let submitted = try await client.submitPurchase(submit, metadata: bearer("backend"))
    let id = submitted.submissionID
    #expect(!id.isEmpty)
    let request = Tollgate_V1_GetSubmissionRequest.with { $0.submissionID = id }
    #expect(try await client.getSubmission(request, metadata: bearer("backend")).userID == "victim")
    #expect(await code({ _ = try await client.getSubmission(request, metadata: bearer("other")) }) == .notFound)
    #expect(try await http("GET", server.http, "/v1/submissions/\(id)", key: keys["backend"]).status == 200)
    let other = try await http("GET", server.http, "/v1/submissions/\(id)", key: keys["other"])
    #expect(other.status == 404)
    let named = other.body.range(of: "victim") != nil
    #expect(!named, "the refusal names the submission's user: \(other.body)")
  }

  /// Ten wrong keys over HTTP use this address's budget (burst 10): the gRPC door and the fast port
  /// then refuse even a good key from it (RESOURCE_EXHAUSTED), as HTTP does (429).
  static func sharedBudget(_ client: Client, _ server: DoorAttackServe) async throws {
    for _ in 0..<10 {
      #expect(try await http("GET", server.http, "/v1/users/victim", key: "tgk_wrong_guess").status == 401)
    }
    #expect(try await http("GET", server.http, "/v1/users/victim", key: keys["reader"]).status == 429)
    let request = Tollgate_V1_IsSubscriberRequest.with {
      $0.userID = "victim"
      $0.entitlement = "premium"
    }
    #expect(
      await code({ _ = try await client.isSubscriber(request, metadata: bearer("reader")) }) == .resourceExhausted)
    let fast = try await RawWire.exchange(
      port: server.fast, chunks: [try RawWire.authenticate(id: 1, caller: "reader", key: keys["reader"]!)], frames: 1)
    let answer = try Tollgate_V1_AuthenticateResponse(serializedBytes: try #require(fast.first).payload)
    #expect(answer.error.code == .resourceExhausted, "the fast port's Authenticate after the HTTP door's failures")
  }
}
