import Foundation
import Logging
import Testing
import TollgateCallers
import TollgateServer
import TollgateTesting

@testable import TollgateBench

/// The load generator against servers with callers, on a Unix socket and over TLS: what it sets
/// up before the load (Authenticate, the handshake) and what it refuses to measure.
@Suite("The load generator: callers, Unix sockets and TLS", .serialized)
struct LoadGeneratorAccessTests {
  static let readerKey = "tgk_bench_reader"
  static let submitterKey = "tgk_bench_submitter"
  static let logger = Logger(label: "bench-test.access")

  static func callers() -> CallerAccess {
    .callers(
      CallerRegistry([
        CallerKey(name: "reader", keySha256: CallerKey.digest(of: readerKey), scopes: [.read]),
        CallerKey(name: "submitter", keySha256: CallerKey.digest(of: submitterKey), scopes: [.submit]),
      ]))
  }

  /// Serves `listeners` with `access` while `body` runs.
  static func withServer(
    _ listeners: [RPCListener], access: CallerAccess = .open,
    _ body: (RPCServer, CountingHandler) async throws -> Void
  ) async throws {
    var config = RPCServer.Config.defaults
    config.access = access
    let handler = CountingHandler()
    let server = try RPCServer.bind(listeners: listeners, config: config, handler: handler, logger: logger)
    async let serving: Void = server.run()
    do {
      try await body(server, handler)
    } catch {
      try await server.close()
      throw error
    }
    try await server.close()
    try await serving
  }

  static func configuration(port: Int = 0) -> BenchConfiguration {
    var c = LoadGeneratorTests.configuration(port: port)
    c.requests = 2_001
    c.threads = 2
    return c
  }

  /// Every request answered by the handler: none was refused as unauthenticated on the way.
  static func expectAllAnswered(_ result: BenchResult, by handler: CountingHandler) {
    #expect(result.requests == 2_001)
    #expect(result.errors.total == 0)
    #expect(handler.asked.load(ordering: .relaxed) == 2_001)
    #expect((0.4...0.6).contains(result.activeShare), "refused calls would all read inactive")
  }

  @Test("with a caller, every connection authenticates before the load and every call is answered")
  func authenticated() async throws {
    try await Self.withServer([RPCListener(.tcp(host: "127.0.0.1", port: 0))], access: Self.callers()) {
      server, handler in
      var c = Self.configuration(port: server.port)
      c.caller = "reader"
      let result = try await runBench(c, callerKey: Self.readerKey)
      Self.expectAllAnswered(result, by: handler)
    }
  }

  @Test("a wrong key, an unknown caller or a caller that may not read stops the run before any load")
  func refused() async throws {
    try await Self.withServer([RPCListener(.tcp(host: "127.0.0.1", port: 0))], access: Self.callers()) {
      server, handler in
      for (caller, key, reason) in [
        ("reader", "tgk_not_the_key", "refused"), ("nobody", Self.readerKey, "refused"),
        ("submitter", Self.submitterKey, "may not call IsSubscriber"),
      ] {
        var c = Self.configuration(port: server.port)
        c.caller = caller
        let error = await #expect(throws: BenchError.self) { try await runBench(c, callerKey: key) }
        guard case .authentication(let message) = error else {
          Issue.record("\(caller): \(String(describing: error))")
          continue
        }
        #expect(message.contains(reason), "\(message)")
        #expect(!message.contains(key), "the key never appears in an error")
      }
      #expect(handler.asked.load(ordering: .relaxed) == 0)
    }
  }

  @Test("a caller needs its key, and a key its caller")
  func keyAndCaller() async throws {
    var c = Self.configuration(port: 1)
    c.caller = "reader"
    await #expect(throws: BenchError.self) { try await runBench(c) }
    c.caller = nil
    await #expect(throws: BenchError.self) { try await runBench(c, callerKey: Self.readerKey) }
  }

  @Test("a Unix domain socket carries the load, authenticated")
  func unixSocket() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("bench.sock")
    try await Self.withServer([RPCListener(.unix(path: path))], access: Self.callers()) { _, handler in
      var c = Self.configuration()
      c.unixSocket = path
      c.caller = "reader"
      let result = try await runBench(c, callerKey: Self.readerKey)
      Self.expectAllAnswered(result, by: handler)
      #expect(result.text.contains("unix:\(path)"))
    }
    var c = Self.configuration()
    c.unixSocket = directory.file("nobody.sock")
    await #expect(throws: BenchError.connectUnix(path: c.unixSocket!, errno: ENOENT)) { try await runBench(c) }
  }

  @Test("TLS: the server's certificate is verified, and the load runs inside TLS")
  func tls() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try Self.makeCertificates(in: directory.path)
    let context = try TLSServerContext(
      certificateFile: directory.file("server.pem"), privateKeyFile: directory.file("server.key"))
    let listener = RPCListener(.tcp(host: "127.0.0.1", port: 0), tls: context)
    try await Self.withServer([listener], access: Self.callers()) { server, handler in
      var c = Self.configuration(port: server.port)
      c.tlsCAFile = directory.file("ca.pem")
      c.caller = "reader"
      c.pipeline = 16  // answers split across records and reads
      let result = try await runBench(c, callerKey: Self.readerKey)
      Self.expectAllAnswered(result, by: handler)

      c.tlsServerName = "localhost"
      c.requests = 1
      c.threads = 1
      #expect(try await runBench(c, callerKey: Self.readerKey).errors.total == 0)

      for (ca, name, reason) in [
        ("other-ca.pem", nil, "did not verify"), ("ca.pem", "tollgate.example", "did not verify"),
      ] {
        c.tlsCAFile = directory.file(ca)
        c.tlsServerName = name
        let error = await #expect(throws: BenchError.self) { try await runBench(c, callerKey: Self.readerKey) }
        guard case .tls(let message) = error else {
          Issue.record("\(ca), \(name ?? "-"): \(String(describing: error))")
          continue
        }
        #expect(message.contains(reason), "\(message)")
      }
      c.tlsCAFile = directory.file("missing.pem")
      await #expect(throws: BenchError.self) { try await runBench(c, callerKey: Self.readerKey) }
    }
  }

  /// A throwaway PKI from clients/test-certs (openssl), written into `dir`.
  static func makeCertificates(in dir: String) throws {
    var root = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { root.deleteLastPathComponent() }
    let process = try SpawnedProcess(
      executable: root.appendingPathComponent("clients/test-certs").path, arguments: [dir])
    try #require(process.terminationStatus == 0, "clients/test-certs failed")
  }
}
