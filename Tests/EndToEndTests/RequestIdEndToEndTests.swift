import AsyncHTTPClient
import Foundation
import NIOCore
import SwiftProtobuf
import Testing
import TollgateContract
import TollgateTesting

/// Issue 29: a request id travels from the door that took the request to the worker's log lines
/// of its inbox item and to the webhooks it causes (`Tollgate-Request-Id`). `serve` (with its
/// HTTP door) and `tollgate worker` run as processes logging JSON (`--log-format json`); every
/// line either writes on stderr parses as one JSON object.
@Suite("Request ids: door → inbox → worker log → webhook, as processes", .serialized)
struct RequestIdEndToEndTests {
  @Test("x-request-id on the HTTP door is echoed, logged by the worker for the item, and sent on its webhook")
  func submittedOverHTTP() async throws {
    try await RequestIdStack.run { stack in
      let purchase = try await stack.workers.sim.purchase(
        .init(productId: Stack.premium, bundleId: Stack.bundleId, environment: "Sandbox"))
      let submitted = try await stack.submit(purchase.signedTransaction, user: "alice", requestId: "abc-123")
      #expect(submitted.status == 202 || submitted.status == 200, "\(submitted.body)")
      #expect(submitted.headers["x-request-id"] == "abc-123")
      let hook = try await stack.delivery(kind: "purchased", user: "alice")
      #expect(hook.headers["tollgate-request-id"] == "abc-123")

      // An id that is not sane is not used: the door makes one up, and answers with it.
      let other = try await stack.workers.sim.purchase(
        .init(productId: Stack.premium, bundleId: Stack.bundleId, environment: "Sandbox"))
      let insane = "not sane: spaces/slash " + String(repeating: "x", count: 70)
      let refused = try await stack.submit(other.signedTransaction, user: "bob", requestId: insane)
      let made = try #require(refused.headers["x-request-id"])
      #expect(made.wholeMatch(of: /[0-9a-f]{16}/) != nil, "\(made)")
      #expect(try await stack.delivery(kind: "purchased", user: "bob").headers["tollgate-request-id"] == made)

      let logs = try stack.stop()
      #expect(
        logs.worker.contains {
          $0["request_id"] as? String == "abc-123" && $0["message"] as? String == "subscription verified"
        },
        "the worker's line for alice's item names its request id")
      #expect(logs.worker.contains { $0["request_id"] as? String == made })
      #expect(logs.worker.allSatisfy { $0["timestamp"] is String && $0["level"] is String && $0["label"] is String })
      #expect(logs.serve.allSatisfy { $0["message"] is String })
    }
  }

  @Test("a store notification gets a request id at the worker's listener, logged for its item and sent on its webhook")
  func storeNotification() async throws {
    try await RequestIdStack.run { stack in
      let purchase = try await stack.workers.sim.purchase(
        .init(productId: Stack.premium, bundleId: Stack.bundleId, environment: "Sandbox"))
      _ = try await stack.submit(purchase.signedTransaction, user: "carol", requestId: "carol-buys")
      _ = try await stack.delivery(kind: "purchased", user: "carol")
      // The refund reaches the worker as the store's signed notification.
      try await stack.workers.sim.refund(purchase.originalTransactionId)
      let hook = try await stack.delivery(kind: "refunded", user: "carol")
      let id = try #require(hook.headers["tollgate-request-id"], "the refund's webhook carries a request id")
      #expect(id != "carol-buys" && id.wholeMatch(of: /[0-9a-f]{16}/) != nil, "\(id)")

      let logs = try stack.stop()
      let lines = logs.worker.filter { $0["request_id"] as? String == id }
      let messages = Set(lines.compactMap { $0["message"] as? String })
      #expect(messages.isSuperset(of: ["notification stored", "subscription verified"]), "\(messages)")
    }
  }
}

/// `serve` with its HTTP door and a worker, both logging JSON, on one SQLite database; the
/// worker's webhooks go to a receiver that takes them all.
struct RequestIdStack {
  let workers: WorkerProcesses
  let receiver: ScriptedHTTPServer
  let serve: ChildProcess
  let worker: ChildProcess
  let http: String

  static func run(_ body: (RequestIdStack) async throws -> Void) async throws {
    let receiver = try await ScriptedHTTPServer.start()
    for _ in 0..<100 { receiver.enqueue("POST", "/hooks", .init(status: 204)) }
    let workers = try await WorkerProcesses.make(prefix: "tollgate-request-ids", receivingNotifications: true)
    do {
      let stack = try await start(workers, receiver)
      defer {
        stack.serve.terminate()
        stack.worker.terminate()
      }
      try await body(stack)
    } catch {
      await workers.remove()
      await receiver.stop()
      throw error
    }
    await workers.remove()
    await receiver.stop()
  }

  static func start(_ workers: WorkerProcesses, _ receiver: ScriptedHTTPServer) async throws -> RequestIdStack {
    // The worker's config, with a webhook endpoint.
    let url = URL(fileURLWithPath: workers.config)
    var config = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    config["webhooks"] = [["url": receiver.baseURL + "/hooks", "secretEnv": "REQUEST_ID_HOOK_SECRET"]]
    try JSONSerialization.data(withJSONObject: config).write(to: url)
    var environment = workers.environment
    environment["REQUEST_ID_HOOK_SECRET"] = "s3cret"
    let worker = try ChildProcess(
      ["worker", "--config", workers.config, "--create", "--log-level", "info", "--log-format", "json"],
      environment: environment)
    guard await worker.waitForLine(containing: "notifications on") != nil else {
      worker.terminate()
      throw WorkerDidNotStart(stderr: worker.finish().stderr)
    }
    let serve = try ChildProcess([
      "serve", "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0", "--database", workers.database,
      "--follow-clock", workers.sim.baseURL, "--log-level", "info", "--log-format", "json",
    ])
    guard let line = await serve.waitForLine(containing: "listening on"),
      let http = HTTPDoorEndToEndTests.door("http", in: line)
    else {
      serve.terminate()
      worker.terminate()
      throw ServeDidNotStart(stderr: serve.finish().stderr)
    }
    return RequestIdStack(workers: workers, receiver: receiver, serve: serve, worker: worker, http: http)
  }

  /// `POST /v1/purchases` with `x-request-id: requestId`; the answer's headers by lowercased name
  /// (the first of each).
  func submit(_ receipt: String, user: String, requestId: String) async throws -> (
    status: Int, headers: [String: String], body: String
  ) {
    var message = Tollgate_V1_SubmitPurchaseRequest()
    message.userID = user
    message.store = .appStore
    message.receipt = receipt
    var request = HTTPClientRequest(url: "http://\(http)/v1/purchases")
    request.method = .POST
    request.headers.add(name: "content-type", value: "application/json")
    request.headers.add(name: "x-request-id", value: requestId)
    request.body = .bytes(ByteBuffer(string: try message.jsonString()))
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
    let body = try await response.body.collect(upTo: 1 << 20)
    var headers: [String: String] = [:]
    for (name, value) in response.headers where headers[name.lowercased()] == nil { headers[name.lowercased()] = value }
    return (Int(response.status.code), headers, String(buffer: body))
  }

  /// The first webhook delivery of `kind` for `user` (waits up to 20 s).
  func delivery(kind: String, user: String) async throws -> ScriptedHTTPServer.Recorded {
    let found = await eventually(timeout: .seconds(20)) {
      receiver.recorded.contains {
        $0.jsonBody?["kind"] as? String == kind && $0.jsonBody?["userId"] as? String == user
      }
    }
    #expect(found != nil, "no \(kind) webhook for \(user)")
    return try #require(
      receiver.recorded.first { $0.jsonBody?["kind"] as? String == kind && $0.jsonBody?["userId"] as? String == user })
  }

  /// Stops both processes; returns every line each wrote on stderr, each parsed as one JSON object
  /// (a line that is not one fails the test).
  func stop() throws -> (serve: [[String: Any]], worker: [[String: Any]]) {
    serve.terminate()
    worker.terminate()
    let serveLines = try Self.objects(serve.finish().stderr, "serve")
    let workerLines = try Self.objects(worker.finish().stderr, "worker")
    #expect(!serveLines.isEmpty && !workerLines.isEmpty, "both logged at info")
    return (serveLines, workerLines)
  }

  static func objects(_ stderr: String, _ process: String) throws -> [[String: Any]] {
    try stderr.split(separator: "\n").map { line in
      let object = try? JSONSerialization.jsonObject(with: Data(line.utf8))
      return try #require(object as? [String: Any], "\(process) wrote a line that is not a JSON object: \(line)")
    }
  }
}
