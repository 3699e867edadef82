import CoreMetrics
import Foundation
import Logging
import NIOCore
import NIOPosix
import Testing
import TollgateCore
import TollgateTesting

@testable import TollgateWorker

/// The worker's HTTP edges over real sockets: which routes each listener serves, the header and
/// idle timeouts, and notification bodies over the cap.
@Suite("Worker listeners")
struct WorkerListenersTests {
  /// A running worker on port 0 (both listeners) over a fake storage and a fake store.
  struct RunningWorker {
    let worker: VerifierWorker
    let storage: FakeWorkerStorage
    let port: Int
    let adminPort: Int
  }

  /// Both listeners on port 0, changed by `configure`.
  static func settings(_ configure: (inout WorkerSettings) -> Void = { _ in }) -> WorkerSettings {
    var settings = WorkerSettings()
    settings.listen = "127.0.0.1:0"
    settings.adminListen = "127.0.0.1:0"
    configure(&settings)
    return settings
  }

  func withWorker(
    _ settings: WorkerSettings = Self.settings(), body: (RunningWorker) async throws -> Void
  ) async throws {
    let storage = FakeWorkerStorage()
    let catalog = ProductCatalog(
      apps: [AppConfig(id: "ios", store: .appStore, bundleId: "com.example.app")],
      entitlements: [EntitlementDefinition(id: "premium")],
      products: [ProductConfig(productId: "monthly", entitlements: ["premium"])])
    let worker = try VerifierWorker(
      configuration: WorkerConfiguration(catalog: catalog, worker: settings), storage: storage,
      gateways: [FakeStoreGateway()], environment: [:],
      metrics: (NOOPMetricsHandler.instance, { "tollgate_test_metric 1\n" }), nowMs: { 1_700_000_000_000 },
      logger: Logger(label: "test.listeners", factory: { _ in SwiftLogNoOpLogHandler() }))
    let task = Task { try await worker.run() }
    defer { task.cancel() }
    let running = RunningWorker(
      worker: worker, storage: storage, port: await worker.listeningPort(), adminPort: await worker.adminListeningPort()
    )
    try await body(running)
    task.cancel()
    _ = await task.result
  }

  @Test("the public listener serves notification routes only; /health and /metrics are on the admin listener")
  func routes() async throws {
    try await withWorker { running in
      let get = { (path: String) in RawHTTP.request("GET \(path) HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n") }
      #expect(try await RawHTTP.exchange(port: running.port, get("/health")).status == 404)
      #expect(try await RawHTTP.exchange(port: running.port, get("/metrics")).status == 404)
      let health = try await RawHTTP.exchange(port: running.adminPort, get("/health"))
      #expect(health.status == 200)
      #expect(health.text.contains(#""status":"serving""#))
      let metrics = try await RawHTTP.exchange(port: running.adminPort, get("/metrics"))
      #expect(metrics.text.contains("tollgate_test_metric 1"))
      let post = RawHTTP.request(
        "POST /notifications/fake HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
      #expect(try await RawHTTP.exchange(port: running.adminPort, post).status == 404)
      #expect(try await RawHTTP.exchange(port: running.port, post).status == 200)
      #expect(await running.storage.items.count == 1)
    }
  }

  @Test("a client that sends half a request head is disconnected after the header timeout")
  func headerTimeout() async throws {
    try await withWorker(
      Self.settings {
        $0.headerTimeoutMs = 300
        $0.idleTimeoutMs = 10_000
      }
    ) { running in
      for port in [running.port, running.adminPort] {
        let started = ContinuousClock.now
        let result = try await RawHTTP.exchange(
          port: port, RawHTTP.request("POST /notifications/fake HTTP/1.1\r\nHost: t\r\nContent-Le"),
          timeout: .seconds(20))
        let elapsed = ContinuousClock.now - started
        #expect(result.closed, "the connection was left open")
        // Loose above: other suites share the two cores; the point is that it closes, and not early.
        #expect(elapsed >= .milliseconds(250) && elapsed < .seconds(9), "closed after \(elapsed)")
        #expect(result.bytes.isEmpty)
      }
      #expect(await running.storage.items.isEmpty)
    }
  }

  @Test("an idle keep-alive connection is closed after the idle timeout")
  func idleTimeout() async throws {
    try await withWorker(
      Self.settings {
        $0.idleTimeoutMs = 1_500
        $0.headerTimeoutMs = 10_000
      }
    ) { running in
      // A complete request answered, then nothing: the connection is kept alive, then closed.
      let started = ContinuousClock.now
      let result = try await RawHTTP.exchange(
        port: running.adminPort, RawHTTP.request("GET /health HTTP/1.1\r\nHost: t\r\n\r\n"), timeout: .seconds(20))
      let elapsed = ContinuousClock.now - started
      #expect(result.status == 200)
      #expect(result.closed, "the idle connection was left open")
      #expect(elapsed >= .milliseconds(1_000) && elapsed < .seconds(15), "closed after \(elapsed)")
      // Nothing sent at all: closed after the idle timeout too.
      let silent = try await RawHTTP.exchange(port: running.port, [], timeout: .seconds(20))
      #expect(silent.closed)
    }
  }

  @Test("a body announced larger than the cap is refused with 413 before it is sent, and nothing is stored")
  func announcedTooLarge() async throws {
    try await withWorker(Self.settings { $0.maxNotificationBytes = 4_096 }) { running in
      // 100 MB announced, 1 KiB sent: the answer comes at once and the connection closes.
      let head = "POST /notifications/fake HTTP/1.1\r\nHost: t\r\nContent-Length: 100000000\r\n\r\n"
      let started = ContinuousClock.now
      let result = try await RawHTTP.exchange(
        port: running.port, [Array(head.utf8), [UInt8](repeating: 0x41, count: 1_024)], timeout: .seconds(20))
      #expect(result.status == 413)
      #expect(result.closed)
      #expect(ContinuousClock.now - started < .seconds(15), "not after reading 100 MB")
      #expect(await running.storage.items.isEmpty)
    }
  }

  @Test("a chunked body over the cap is refused with 413 once the cap is passed, and nothing is stored")
  func chunkedTooLarge() async throws {
    try await withWorker(Self.settings { $0.maxNotificationBytes = 4_096 }) { running in
      // One 8 KiB chunk, no final chunk: the worker stops reading at the cap.
      let head = "POST /notifications/fake HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
      let chunk = Array("2000\r\n".utf8) + [UInt8](repeating: 0x41, count: 8_192) + Array("\r\n".utf8)
      let result = try await RawHTTP.exchange(port: running.port, [Array(head.utf8), chunk], timeout: .seconds(5))
      #expect(result.status == 413)
      #expect(result.closed)
      #expect(await running.storage.items.isEmpty)
      // Within the cap, the same route stores it.
      let small = "POST /notifications/fake HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello"
      #expect(try await RawHTTP.exchange(port: running.port, RawHTTP.request(small)).status == 200)
      #expect(await running.storage.items.count == 1)
    }
  }

  @Test("an address already taken is an error naming the key and the address")
  func bindError() async throws {
    try await withWorker { first in
      var settings = WorkerSettings()
      settings.listen = "127.0.0.1:0"
      settings.adminListen = "127.0.0.1:\(first.adminPort)"
      let worker = try VerifierWorker(
        configuration: WorkerConfiguration(catalog: ProductCatalog(), worker: settings), storage: FakeWorkerStorage(),
        gateways: [FakeStoreGateway()], environment: [:], nowMs: { 1 },
        logger: Logger(label: "test.listeners", factory: { _ in SwiftLogNoOpLogHandler() }))
      await #expect {
        try await worker.run()
      } throws: { error in
        "\(error)".contains("worker.adminListen (127.0.0.1:\(first.adminPort)): cannot listen")
      }
      #expect(await worker.adminListeningPort() == 0)
    }
  }
}

/// Bytes over a plain TCP connection, for what an HTTP client library would not send.
enum RawHTTP {
  struct Result {
    var bytes: [UInt8]
    /// The peer closed the connection (before the timeout).
    var closed: Bool
    var text: String { String(decoding: bytes, as: UTF8.self) }
    /// The first response's status code, 0 if none.
    var status: Int {
      guard text.hasPrefix("HTTP/1.1 ") else { return 0 }
      return Int(text.dropFirst(9).prefix(3)) ?? 0
    }
  }

  static func request(_ text: String) -> [[UInt8]] { [Array(text.utf8)] }

  /// Connects, writes the chunks, then reads until the peer closes or `timeout` passes.
  static func exchange(port: Int, _ chunks: [[UInt8]], timeout: Duration = .seconds(30)) async throws -> Result {
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .connect(host: "127.0.0.1", port: port) { channel in
        channel.eventLoop.makeCompletedFuture {
          try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
        }
      }
    return try await channel.executeThenClose { inbound, outbound in
      for chunk in chunks { try await outbound.write(ByteBuffer(bytes: chunk)) }
      return await withTaskGroup(of: Result?.self) { group in
        group.addTask {
          var bytes: [UInt8] = []
          do {
            for try await buffer in inbound { bytes += Array(buffer.readableBytesView) }
          } catch {
            // A reset after the response: what arrived is kept.
          }
          return Result(bytes: bytes, closed: true)
        }
        group.addTask {
          try? await Task.sleep(for: timeout)
          return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first ?? Result(bytes: [], closed: false)
      }
    }
  }
}
