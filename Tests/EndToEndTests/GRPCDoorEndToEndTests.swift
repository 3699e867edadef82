import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import Testing
import TollgateClient
import TollgateContract
import TollgateGRPC
import TollgateTesting

/// The gRPC door of `tollgate serve` as a process (issue 28), with grpc-swift's stock client over
/// HTTP/2, beside the fast port on the same server: a purchase submitted over gRPC that
/// `tollgate worker` verifies with the simulator, the same answers as the fast port, refusals as
/// status codes, a key removed from the callers file refused at its next call, and SIGTERM.
@Suite("tollgate serve: the gRPC door, as processes", .serialized)
struct GRPCDoorEndToEndTests {
  static let readerKey = "tgk_grpc_reader_0123456789abcdef"
  static let backendKey = "tgk_grpc_backend_fedcba9876543210"

  static func callers(reader: Bool = true) -> [[String: Any]] {
    [
      ["name": "reader", "keySha256": ServeAccessEndToEndTests.hex(readerKey), "scopes": ["read"]],
      ["name": "backend", "keySha256": ServeAccessEndToEndTests.hex(backendKey), "scopes": ["read", "submit"]],
    ].filter { reader || $0["name"] as? String != "reader" }
  }

  static func writeCallers(_ callers: [[String: Any]], to path: String) throws {
    try JSONSerialization.data(withJSONObject: callers).write(to: URL(fileURLWithPath: path), options: .atomic)
  }

  static func bearer(_ key: String) -> Metadata { ["authorization": "Bearer \(key)"] }

  @Test("submit over gRPC → verified, the fast port's answers, refusals, a removed key, SIGTERM")
  func grpcDoor() async throws {
    let workers = try await WorkerProcesses.make(prefix: "tollgate-grpc-door")
    do {
      try await Self.run(workers)
    } catch {
      await workers.remove()
      throw error
    }
    await workers.remove()
  }

  static func run(_ workers: WorkerProcesses) async throws {
    let callersFile = workers.dir.file("callers.json")
    try writeCallers(callers(), to: callersFile)
    let serve = try await HTTPDoorEndToEndTests.serve(
      ["listen": "127.0.0.1:0", "database": workers.database, "callersFile": callersFile],
      in: workers.dir, extra: ["--grpc-listen", "127.0.0.1:0"])
    defer { serve.process.terminate() }
    let address = try #require(HTTPDoorEndToEndTests.door("grpc", in: serve.line), "no grpc: in \(serve.line)")
    let port = try #require(Int(address.split(separator: ":").last ?? ""))
    let worker = try await workers.start().process
    defer { worker.terminate() }
    let fast = try ServeAccessEndToEndTests.client(serve.tcp, caller: "backend", key: backendKey)

    let transport = try HTTP2ClientTransport.Posix(
      target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext)
    try await withGRPCClient(transport: transport) { grpc in
      let client = Tollgate_V1_Entitlements.Client(wrapping: grpc)
      let users = ["grpc-user-1", "grpc user/2"]
      for user in users {
        let purchase = try await workers.sim.purchase(
          .init(productId: Stack.premium, bundleId: Stack.bundleId, environment: "Sandbox"))
        var request = Tollgate_V1_SubmitPurchaseRequest()
        request.userID = user
        request.store = .appStore
        request.receipt = purchase.signedTransaction
        let submitted = try await client.submitPurchase(request, metadata: bearer(backendKey))
        var query = Tollgate_V1_GetSubmissionRequest()
        query.submissionID = submitted.submissionID
        let verified = await eventually(timeout: .seconds(20)) {
          (try? await client.getSubmission(query, metadata: bearer(backendKey)).status) == .verified
        }
        #expect(verified != nil, "\(user)'s purchase was never verified over gRPC")
        let onFastPort = try await fast.getSubmission(submissionId: submitted.submissionID)
        #expect(onFastPort.status == .verified)
      }

      // The same answers as the fast port (evaluatedAtMs aside), entitled users and strangers alike.
      _ = await eventually(timeout: .seconds(10)) {
        (try? await fast.isSubscriber(userId: users[1], entitlement: "premium").active) == true
      }
      for user in users + ["nobody-here"] {
        var viaFast = try await fast.isSubscriber(userId: user, entitlement: "premium")
        var request = Tollgate_V1_IsSubscriberRequest()
        request.userID = user
        request.entitlement = "premium"
        var viaGRPC = try await client.isSubscriber(request, metadata: bearer(readerKey))
        viaFast.evaluatedAtMs = 0
        viaGRPC.evaluatedAtMs = 0
        #expect(viaGRPC == viaFast, "\(user)")
        #expect(viaGRPC.active == users.contains(user), "\(user)")
      }
      var nobody = Tollgate_V1_GetSubscriptionRequest()
      nobody.userID = "nobody-here"
      let missing = await refusal { try await client.getSubscription(nobody, metadata: bearer(readerKey)) }
      #expect(missing?.code == .notFound)
      #expect(missing?.metadata[stringValues: "tollgate-error-code"].map { $0 } == ["ERROR_CODE_NOT_FOUND"])

      // Refused callers.
      var read = Tollgate_V1_IsSubscriberRequest()
      read.userID = users[0]
      read.entitlement = "premium"
      let anonymous = await refusal { try await client.isSubscriber(read) }
      #expect(anonymous?.code == .unauthenticated)
      let denied = await refusal {
        try await client.submitPurchase(Tollgate_V1_SubmitPurchaseRequest(), metadata: bearer(readerKey))
      }
      #expect(denied?.code == .permissionDenied)

      // The reader's key leaves the callers file: its next call is refused, the backend's is not.
      try writeCallers(callers(reader: false), to: callersFile)
      let removed = await eventually(timeout: .seconds(10)) {
        await refusal { try await client.isSubscriber(read, metadata: bearer(readerKey)) }?.code == .unauthenticated
      }
      #expect(removed != nil, "the removed reader key was still let in")
      let backend = try await client.isSubscriber(read, metadata: bearer(backendKey))
      #expect(backend.active)
    }

    // SIGTERM: the door shuts down gracefully with the rest (a cancelled listener would trap).
    serve.process.terminate()
    let ended = await withCheckedContinuation { continuation in
      DispatchQueue.global().async { continuation.resume(returning: serve.process.finish()) }
    }
    #expect(ended.status == 0, "\(ended.stderr)")
  }

  @Test("protected mode: a gRPC door beyond loopback without callers is refused, naming it")
  func protectedMode() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let refused = try await ChildProcess.runDetached([
      "serve", "--listen", "127.0.0.1:0", "--grpc-listen", "0.0.0.0:0", "--database", dir.file("t.sqlite"),
      "--create",
    ])
    #expect(refused.status != 0)
    #expect(refused.stderr.contains("refusing to listen on 0.0.0.0:0 (service.grpc.listen) without callers"))
  }

  @Test("a missing TLS file of the gRPC door stops serve, naming the key and the file")
  func missingTLSFile() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let config = dir.file("tls.json")
    let service: [String: Any] = [
      "database": dir.file("t.sqlite"),
      "grpc": [
        "listen": "127.0.0.1:0",
        "tls": ["certificateFile": dir.file("missing.pem"), "privateKeyFile": dir.file("missing.key")],
      ],
    ]
    try JSONSerialization.data(withJSONObject: ["service": service]).write(to: URL(fileURLWithPath: config))
    let result = try await ChildProcess.runDetached(["serve", "--config", config, "--create"])
    #expect(result.status != 0)
    #expect(result.stderr.contains("service.grpc.tls.certificateFile \(dir.file("missing.pem"))"), "\(result.stderr)")
    #expect(!result.stdout.contains("listening on"))
  }

  /// The `RPCError` `call` failed with, or nil when it succeeded.
  static func refusal<T: Sendable>(_ call: () async throws -> T) async -> RPCError? {
    do {
      _ = try await call()
      return nil
    } catch {
      return error as? RPCError ?? RPCError(code: .unknown, message: "\(error)")
    }
  }
}
