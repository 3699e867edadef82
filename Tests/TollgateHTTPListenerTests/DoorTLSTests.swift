import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization
import Testing
import TollgateTesting

@testable import TollgateHTTPListener

/// `DoorTLS`, the doors' one TLS settings type: its files' problems name their config key, and a
/// listener built with it (`HTTPListener.application(…, tls:)`) cuts a connection whose TLS
/// handshake never finishes at the first head's deadline, counted as `header_timeout`.
@Suite("DoorTLS: the doors' TLS files, and a TLS listener's handshake deadline")
struct DoorTLSTests {
  /// A throwaway PKI from clients/test-certs: ca.pem, server.pem/.key, client.pem/.key, other-ca.pem.
  static func pki() async throws -> TemporaryDirectory {
    let directory = try TemporaryDirectory(prefix: "tollgate-door-tls")
    var root = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { root.deleteLastPathComponent() }
    let status = try await ChildProcess.runTool(
      root.appendingPathComponent("clients/test-certs").path, [directory.path])
    try #require(status == 0, "clients/test-certs failed")
    return directory
  }

  @Test("each unusable file is an error naming its key and the file; an empty path is a config problem")
  func problemsNameTheKey() async throws {
    let pki = try await Self.pki()
    defer { pki.remove() }
    let good = DoorTLS(
      certificateFile: pki.file("server.pem"), privateKeyFile: pki.file("server.key"), clientCAFile: pki.file("ca.pem"))
    try good.check(key: "service.http.tls")
    #expect(good.problem(key: "service.http.tls") == nil)

    var cases: [(DoorTLS, String, String)] = []
    var tls = good
    tls.certificateFile = pki.file("missing.pem")
    cases.append((tls, "service.http.tls.certificateFile", "cannot be read"))
    tls = good
    tls.certificateFile = pki.file("server.key")
    cases.append((tls, "service.http.tls.certificateFile", "holds no PEM certificate"))
    tls = good
    tls.privateKeyFile = pki.file("server.pem")
    cases.append((tls, "service.http.tls.privateKeyFile", "holds no unencrypted PEM private key"))
    tls = good
    tls.privateKeyFile = pki.file("client.key")
    cases.append((tls, "service.http.tls.privateKeyFile", "cannot be used with \(pki.file("server.pem"))"))
    tls = good
    tls.clientCAFile = pki.file("missing-ca.pem")
    cases.append((tls, "service.http.tls.clientCAFile", "cannot be read"))
    for (tls, key, problem) in cases {
      #expect {
        try tls.check(key: "service.http.tls")
      } throws: { error in
        guard let error = error as? DoorTLSError else { return false }
        return error.key == key && error.problem.hasPrefix(problem)
          && "\(error)".hasPrefix("\(key) \(error.file): ")
      }
    }

    var empty = good
    empty.privateKeyFile = ""
    #expect(empty.problem(key: "service.grpc.tls") == "service.grpc.tls.privateKeyFile must name a PEM file")
    empty = good
    empty.clientCAFile = ""
    #expect(empty.problem(key: "service.http.tls") == "service.http.tls.clientCAFile must name a PEM file")
  }

  @Test("a TLS listener cuts a silent connection and a half-done handshake at the first head's deadline")
  func handshakeDeadline() async throws {
    let pki = try await Self.pki()
    defer { pki.remove() }
    let cuts = Mutex<[String]>([])
    let limits = HTTPListenerLimits(
      listener: "door", headerTimeout: .milliseconds(300), requestTimeout: .seconds(30), minBodyBytesPerSecond: 0,
      bodyRateGrace: .seconds(1), maxConnections: 10, firstHeadTimeout: .milliseconds(300),
      countCut: { listener, reason in cuts.withLock { $0.append("\(listener) \(reason)") } })
    let tls = DoorTLS(certificateFile: pki.file("server.pem"), privateKeyFile: pki.file("server.key"))
    try await Self.withTLSListener(tls: tls, limits: limits) { port in
      // Nothing at all; then a TLS handshake record announcing 500 bytes, 40 of them sent. The
      // idle timeout (60 s) is far off: only the first head's deadline can close them.
      let silent = SocketFlood()
      defer { silent.closeAll() }
      try silent.connect(count: 1, port: port)
      let stalled = SocketFlood()
      defer { stalled.closeAll() }
      try stalled.connect(
        count: 1, port: port, sending: [0x16, 0x03, 0x01, 0x01, 0xf4] + Array(repeating: 1, count: 40))
      #expect(await silent.waitUntilClosedByPeer(atLeast: 1, timeout: .seconds(10)))
      #expect(await stalled.waitUntilClosedByPeer(atLeast: 1, timeout: .seconds(10)))
      let counted = await eventually { cuts.withLock { $0 } == ["door header_timeout", "door header_timeout"] }
      #expect(counted != nil, "\(cuts.withLock { $0 })")
      // Their slots are back.
      #expect(await eventually { limits.openConnections == 0 } != nil)
    }

    // The control: without a first-head deadline (the worker's listeners) the same silent TLS
    // connection is still open well past 300 ms: the cut above is the deadline's.
    let open = HTTPListenerLimits(
      listener: "worker", headerTimeout: .milliseconds(300), requestTimeout: .seconds(30), minBodyBytesPerSecond: 0,
      bodyRateGrace: .seconds(1), maxConnections: 10, countCut: { _, _ in })
    try await Self.withTLSListener(tls: tls, limits: open) { port in
      let silent = SocketFlood()
      defer { silent.closeAll() }
      try silent.connect(count: 1, port: port)
      #expect(!(await silent.waitUntilClosedByPeer(atLeast: 1, timeout: .seconds(1))))
    }
  }

  /// Runs a TLS listener answering `GET /` on a free loopback port until `body` returns.
  static func withTLSListener(tls: DoorTLS, limits: HTTPListenerLimits, body: (_ port: Int) async throws -> Void)
    async throws
  {
    let logger = Logger(label: "test.door-tls", factory: { _ in SwiftLogNoOpLogHandler() })
    let router = Router()
    router.get("/") { _, _ in "ok" }
    let address = ListenAddress(host: "127.0.0.1", port: 0)
    let bound = BoundPort()
    let application = try HTTPListener.application(
      router: router, address: address, tls: tls, key: "test.tls", limits: limits, idleTimeout: .seconds(60),
      bound: bound, logger: logger)
    let group = ServiceGroup(
      configuration: .init(
        services: [HTTPListenerTests.ListenerService(application: application, address: address, bound: bound)],
        logger: logger))
    try await withThrowingTaskGroup(of: Void.self) { tasks in
      tasks.addTask { try await group.run() }
      let port = await bound.value()
      #expect(port != 0)
      do {
        try await body(port)
      } catch {
        await group.triggerGracefulShutdown()
        throw error
      }
      await group.triggerGracefulShutdown()
      try await tasks.waitForAll()
    }
  }
}
