import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
import Testing
import TollgateHTTPListener
import TollgateTesting

/// A listener built by `HTTPListener` on its own, as a door other than the worker builds one: it
/// answers its router, and each connection its guard cuts reaches `countCut` (the worker's
/// `tollgate_http_connections_cut_total`) with the listener's name and the reason.
@Suite("HTTP listener")
struct HTTPListenerTests {
  final class Cuts: Sendable {
    let list = Mutex<[String]>([])
    var all: [String] { list.withLock { $0 } }
  }

  @Test("each connection the guard cuts is counted with its listener and reason")
  func cutsAreCounted() async throws {
    let cuts = Cuts()
    let limits = HTTPListenerLimits(
      listener: "door", headerTimeout: .milliseconds(300), requestTimeout: .seconds(10), minBodyBytesPerSecond: 0,
      bodyRateGrace: .seconds(1), maxConnections: 1,
      countCut: { listener, reason in cuts.list.withLock { $0.append("\(listener) \(reason)") } })
    try await withListener(limits: limits) { port in
      let answered = try await SlowHTTPClient.send(
        port: port, head: SlowHTTPClient.head("GET", "/", headers: ["Connection: close"]), timeout: .seconds(5))
      #expect(answered.status == 200, "answered: \(answered.text.prefix(60))")
      #expect(cuts.all.isEmpty)

      // Half a head, then nothing: cut at the header timeout.
      let half = SocketFlood()
      try half.connect(count: 1, port: port, sending: Array("GET / HTTP/1.1\r\nHo".utf8))
      #expect(await half.waitUntilClosedByPeer(atLeast: 1, timeout: .seconds(5)))
      half.closeAll()
      #expect(await eventually { cuts.all == ["door header_timeout"] } != nil, "\(cuts.all)")

      // Two quiet connections and one slot: whichever comes second is closed at once.
      let quiet = SocketFlood()
      defer { quiet.closeAll() }
      try quiet.connect(count: 2, port: port)
      #expect(await quiet.waitUntilClosedByPeer(atLeast: 1, timeout: .seconds(5)))
      #expect(await eventually { cuts.all == ["door header_timeout", "door over_capacity"] } != nil, "\(cuts.all)")
      try await Task.sleep(for: .milliseconds(100))
      #expect(quiet.closedByPeer() == 1, "the connection holding the slot was closed too")
    }
  }

  /// Runs a listener with one route (`GET /` answers "ok") on a free port until `body` returns,
  /// then shuts it down gracefully.
  func withListener(limits: HTTPListenerLimits, body: (_ port: Int) async throws -> Void) async throws {
    let logger = Logger(label: "test.http-listener", factory: { _ in SwiftLogNoOpLogHandler() })
    let router = Router()
    router.get("/") { _, _ in "ok" }
    let address = ListenAddress(host: "127.0.0.1", port: 0)
    let bound = BoundPort()
    let application = HTTPListener.application(
      router: router, address: address, limits: limits, idleTimeout: .seconds(30), bound: bound, logger: logger)
    let group = ServiceGroup(
      configuration: .init(
        services: [ListenerService(application: application, address: address, bound: bound)],
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

  struct ListenerService: Service {
    let application: Application<RouterResponder<BasicRequestContext>>
    let address: ListenAddress
    let bound: BoundPort

    func run() async throws {
      try await HTTPListener.run(application, key: "test.listen", address: address, bound: bound)
    }
  }
}
