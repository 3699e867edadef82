import AsyncHTTPClient
import Foundation
import NIOCore
import SwiftProtobuf
import Testing
import TollgateClient
import TollgateContract
import TollgateHTTPAPI
import TollgateTesting

/// The HTTP/JSON door of `tollgate serve` as a process (issue 28), over real HTTP, beside the fast
/// port on the same server: the same answers for the same users, problem documents for refused
/// callers, and a purchase submitted over HTTP that `tollgate worker` verifies with the simulator.
@Suite("tollgate serve: the HTTP/JSON door, as processes", .serialized)
struct HTTPDoorEndToEndTests {
  static let readerKey = "tgk_http_reader_0123456789abcdef"
  static let backendKey = "tgk_http_backend_fedcba9876543210"
  static let opsKey = "tgk_http_ops_00112233445566778899"

  static func callers() -> [[String: Any]] {
    [
      ["name": "reader", "keySha256": ServeAccessEndToEndTests.hex(readerKey), "scopes": ["read"]],
      ["name": "backend", "keySha256": ServeAccessEndToEndTests.hex(backendKey), "scopes": ["read", "submit"]],
      ["name": "ops", "keySha256": ServeAccessEndToEndTests.hex(opsKey), "scopes": ["admin"]],
    ]
  }

  @Test("the same answers as the fast port, 401/403 problems, and submit → verified over HTTP")
  func httpDoor() async throws {
    let workers = try await WorkerProcesses.make(prefix: "tollgate-http-door")
    do {
      try await Self.run(workers)
    } catch {
      await workers.remove()
      throw error
    }
    await workers.remove()
  }

  static func run(_ workers: WorkerProcesses) async throws {
    // The flag wins over the file's (unusable) address.
    let serve = try await Self.serve(
      [
        "listen": "127.0.0.1:0", "database": workers.database, "callers": callers(),
        "http": ["listen": "127.0.0.1:1", "requestTimeoutMs": 5_000],
      ], in: workers.dir, extra: ["--http-listen", "127.0.0.1:0"])
    defer { serve.process.terminate() }
    let http = DoorHTTP(address: try #require(Self.door("http", in: serve.line), "no http: in \(serve.line)"))
    let worker = try await workers.start().process
    defer { worker.terminate() }
    let fast = try ServeAccessEndToEndTests.client(serve.tcp, caller: "backend", key: backendKey)

    // Purchases submitted over HTTP: 202 with Location while pending; verified by the worker.
    let users = ["http-user-1", "http user/2", "ünï%3"]
    for user in users {
      let purchase = try await workers.sim.purchase(
        .init(productId: Stack.premium, bundleId: Stack.bundleId, environment: "Sandbox"))
      var request = Tollgate_V1_SubmitPurchaseRequest()
      request.userID = user
      request.store = .appStore
      request.receipt = purchase.signedTransaction
      let submitted = try await http.call(.post, "/v1/purchases", key: backendKey, json: try request.jsonString())
      #expect(submitted.status == 202 || submitted.status == 200, "\(submitted.body)")
      let answer = try Tollgate_V1_SubmitPurchaseResponse(jsonString: submitted.body)
      let location = "/v1/submissions/" + DoorHTTP.segment(answer.submissionID)
      if submitted.status == 202 { #expect(submitted.headers["location"] == location) }
      let verified = await eventually(timeout: .seconds(20)) {
        guard let polled = try? await http.call(.get, location, key: backendKey), polled.status == 200,
          let status = try? Tollgate_V1_GetSubmissionResponse(jsonString: polled.body).status
        else { return false }
        return status == .verified
      }
      #expect(verified != nil, "\(user)'s purchase was never verified over HTTP")
      // The fast port sees the same submission the same way.
      #expect(try await fast.getSubmission(submissionId: answer.submissionID).status == .verified)
    }

    // The same answers on both doors (evaluatedAtMs aside), entitled users and strangers alike.
    _ = await eventually(timeout: .seconds(10)) {
      (try? await fast.isSubscriber(userId: users[2], entitlement: "premium").active) == true
    }
    for user in users + ["nobody-here", "a/b c"] {
      var viaFast = try await fast.isSubscriber(userId: user, entitlement: "premium")
      let answered = try await http.call(
        .get, "/v1/users/\(DoorHTTP.segment(user))/entitlements/premium", key: readerKey)
      #expect(answered.status == 200)
      var viaHTTP = try Tollgate_V1_IsSubscriberResponse(jsonString: answered.body)
      viaFast.evaluatedAtMs = 0
      viaHTTP.evaluatedAtMs = 0
      #expect(viaHTTP == viaFast, "\(user)")
      #expect(viaHTTP.active == users.contains(user), "\(user)")
      if viaHTTP.active { #expect(answered.body.contains(#""expiresAtMs":""#), "int64 as a string") }

      let subscription = try await http.call(.get, "/v1/users/\(DoorHTTP.segment(user))", key: readerKey)
      do {
        var fastSubscription = try await fast.getSubscription(userId: user)
        var httpSubscription = try Tollgate_V1_GetSubscriptionResponse(jsonString: subscription.body)
        fastSubscription.evaluatedAtMs = 0
        httpSubscription.evaluatedAtMs = 0
        #expect(subscription.status == 200)
        #expect(httpSubscription == fastSubscription, "\(user)")
      } catch let error as TollgateClientError {
        #expect(error.code == .notFound)
        #expect(subscription.status == 404, "\(user): \(subscription.body)")
        #expect(subscription.body.contains("ERROR_CODE_NOT_FOUND"))
      }
    }

    // Refused callers: problem documents, nothing of the body read.
    let anonymous = try await http.call(.get, "/v1/users/http-user-1", key: nil)
    #expect(anonymous.status == 401)
    #expect(anonymous.headers["www-authenticate"] == #"Bearer realm="tollgate""#)
    #expect(anonymous.headers["content-type"] == "application/problem+json")
    #expect(anonymous.body.contains("urn:tollgate:problem:unauthenticated"))
    #expect(try await http.call(.get, "/v1/users/http-user-1", key: "tgk_not_a_key").status == 401)
    let reader = try await http.call(.post, "/v1/purchases", key: readerKey, json: #"{"userId":"x","receipt":"1"}"#)
    #expect(reader.status == 403)
    #expect(reader.body.contains("caller reader may not call SubmitPurchase: it needs the submit scope"))
    #expect(try await http.call(.get, "/v1/submissions/s1", key: readerKey).status == 403)
    let health = try await http.call(.get, "/v1/health", key: readerKey)
    #expect(health.status == 200)
    #expect(health.body.contains("SERVING_STATUS_SERVING"))
    #expect(try await http.call(.get, "/healthz", key: nil).body == #"{"status":"SERVING"}"#)

    // Support and admin: every admin route refused to a read+submit caller; an admin's grant is
    // on the fast port right after its 201.
    for route in HTTPRoutes.all where route.operation?.requiredScope == .admin {
      let path =
        route.path.replacingOccurrences(of: "{userId}", with: "http-user-1")
        .replacingOccurrences(of: "{entitlement}", with: "premium") + (route.endpoint == .lookUp ? "?identifier=x" : "")
      let method: DoorHTTP.Method = route.method == .get ? .get : route.method == .post ? .post : .delete
      let refused = try await http.call(method, path, key: backendKey, json: method == .post ? "{}" : nil)
      #expect(refused.status == 403, "\(route.method) \(path): \(refused.body)")
      #expect(refused.body.contains("it needs the admin scope"))
    }
    let granted = try await http.call(
      .post, "/v1/users/\(DoorHTTP.segment("granted/user"))/grants", key: opsKey,
      json: #"{"entitlement":"premium","until":"2099-01-01T00:00:00Z","note":"over HTTP"}"#)
    #expect(granted.status == 201, "\(granted.body)")
    let entitled = await eventually(timeout: .seconds(10)) {
      (try? await fast.isSubscriber(userId: "granted/user", entitlement: "premium").active) == true
    }
    #expect(entitled != nil, "the HTTP grant is not on the fast port")
    let timeline = try await http.call(.get, "/v1/users/\(DoorHTTP.segment("granted/user"))/timeline", key: opsKey)
    #expect(timeline.status == 200, "\(timeline.body)")
    #expect(try Tollgate_V1_GetTimelineResponse(jsonString: timeline.body).userID == "granted/user")

    // SIGTERM: the door shuts down gracefully with the rest (a cancelled listener would trap).
    serve.process.terminate()
    let ended = await withCheckedContinuation { continuation in
      DispatchQueue.global().async { continuation.resume(returning: serve.process.finish()) }
    }
    #expect(ended.status == 0, "\(ended.stderr)")
  }

  @Test("protected mode: an HTTP door beyond loopback without callers is refused, naming it")
  func protectedMode() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let refused = try await ChildProcess.runDetached([
      "serve", "--listen", "127.0.0.1:0", "--http-listen", "0.0.0.0:0", "--database", dir.file("t.sqlite"),
      "--create",
    ])
    #expect(refused.status != 0)
    #expect(refused.stderr.contains("refusing to listen on 0.0.0.0:0 (service.http.listen) without callers"))
    #expect(!refused.stdout.contains("listening on"))
  }

  @Test("service.http and service.grpc: an unknown key, a bad address, a value out of range are errors naming it")
  func doorSettings() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let cases: [([String: Any], [String], String)] = [
      (["http": ["listne": "127.0.0.1:0"]], [], "service.http.listne is not a known key"),
      (["http": ["listen": "127.0.0.1:99999"]], [], "service.http.listen"),
      (["http": ["listen": "127.0.0.1:0", "maxConnections": 0]], [], "service.http.maxConnections must be between"),
      (["grpc": ["maxConcurrentStreams": 0]], [], "service.grpc.maxConcurrentStreams must be between"),
      (["grpc": ["listen": "localhost"]], [], "service.grpc.listen"),
      ([:], ["--http-listen", "7706"], "--http-listen must be HOST:PORT"),
    ]
    for (service, flags, expected) in cases {
      let config = dir.file("bad.json")
      var section = service
      section["database"] = dir.file("tollgate.sqlite")
      try JSONSerialization.data(withJSONObject: ["service": section]).write(to: URL(fileURLWithPath: config))
      let result = try await ChildProcess.runDetached(["serve", "--config", config, "--create"] + flags)
      #expect(result.status != 0, "\(service) \(flags)")
      #expect(result.stderr.contains(expected), "\(result.stderr)")
    }
  }

  /// Starts serve with `service` as its config section; its fast port and its listening line.
  static func serve(_ service: [String: Any], in dir: TemporaryDirectory, extra: [String] = []) async throws
    -> (process: ChildProcess, tcp: String, line: String)
  {
    let config = dir.file("config-\(UUID().uuidString.prefix(8)).json")
    try JSONSerialization.data(withJSONObject: ["service": service]).write(to: URL(fileURLWithPath: config))
    let process = try ChildProcess(["serve", "--config", config, "--create", "--log-level", "warning"] + extra)
    guard let line = await process.waitForLine(containing: "listening on") else {
      let ended = process.finish()
      Issue.record("serve did not start: \(ended.stderr)")
      throw CancellationError()
    }
    let words = line.split(separator: " ").map { $0.trimmingCharacters(in: [","]) }
    return (process, try #require(words.first { $0.hasPrefix("127.0.0.1:") }), line)
  }

  /// The `name:HOST:PORT` address in serve's listening line, without its prefix.
  static func door(_ name: String, in line: String) -> String? {
    line.split(separator: " ").map { $0.trimmingCharacters(in: [","]) }.first { $0.hasPrefix("\(name):") }
      .map { String($0.dropFirst(name.count + 1)) }
  }
}

/// Real HTTP to the door (AsyncHTTPClient).
struct DoorHTTP {
  let address: String

  struct Answer {
    var status: Int
    /// By lowercased name (the first of each).
    var headers: [String: String]
    var body: String
  }

  enum Method { case get, post, delete }

  func call(_ method: Method, _ path: String, key: String?, json: String? = nil) async throws -> Answer {
    var request = HTTPClientRequest(url: "http://\(address)\(path)")
    switch method {
    case .get: request.method = .GET
    case .post: request.method = .POST
    case .delete: request.method = .DELETE
    }
    if let key { request.headers.add(name: "authorization", value: "Bearer \(key)") }
    if let json {
      request.headers.add(name: "content-type", value: "application/json")
      request.body = .bytes(ByteBuffer(string: json))
    }
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
    let body = try await response.body.collect(upTo: 1 << 20)
    let headers = Dictionary(response.headers.map { ($0.name.lowercased(), $0.value) }) { first, _ in first }
    return Answer(status: Int(response.status.code), headers: headers, body: String(buffer: body))
  }

  /// `text` as one path segment, as `encodeURIComponent` sends it.
  static func segment(_ text: String) -> String {
    text.addingPercentEncoding(
      withAllowedCharacters: CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? ""
  }
}
