import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import TollgateHTTPListener

/// `serve`'s admin listener (`service.adminListen`, `--admin-listen`; off unless set, loopback in
/// the samples): `GET /metrics` (Prometheus text), `GET /livez` (200 while the process runs),
/// `GET /readyz` (200 when ready, 503 naming what is not: `ServeReadiness`) and `GET /health`
/// (Health as JSON). Nothing else (404). It listens through `HTTPListener` with
/// `HTTPListenerLimits`, as the worker's admin listener does: a connection cap, head and request
/// deadlines and an idle timeout, so a stranger who reaches it cannot hold it.
///
/// Run it in a service group that is only ever shut down gracefully (a cancelled Hummingbird
/// listener traps).
public final class ServeAdminListener: Service, Sendable {
  public struct Config: Sendable {
    public var address: ListenAddress
    public var maximumConnections = 32
    public var idleTimeout: TimeAmount = .seconds(60)
    public var headerTimeout: TimeAmount = .seconds(10)
    public var requestTimeout: TimeAmount = .seconds(30)

    public init(address: ListenAddress) {
      self.address = address
    }
  }

  public let config: Config
  private let application: Application<RouterResponder<BasicRequestContext>>
  private let bound = BoundPort()

  /// - Parameters:
  ///   - health: Health as a JSON object and whether it is not serving (503).
  ///   - countCut: told each connection the listener's guard closes, with the reason.
  public init(
    config: Config, metrics: ServeMetrics, health: @escaping @Sendable () -> (json: String, notServing: Bool),
    logger: Logger, countCut: @escaping @Sendable (_ listener: String, _ reason: String) -> Void = { _, _ in }
  ) {
    self.config = config
    let limits = HTTPListenerLimits(
      listener: "service.adminListen", headerTimeout: config.headerTimeout, requestTimeout: config.requestTimeout,
      minBodyBytesPerSecond: 1_024, bodyRateGrace: .seconds(5), maxConnections: config.maximumConnections,
      firstHeadTimeout: config.headerTimeout, countCut: countCut)
    application = HTTPListener.application(
      router: Self.router(metrics: metrics, health: health), address: config.address, limits: limits,
      idleTimeout: config.idleTimeout, bound: bound, logger: logger)
  }

  static func router(
    metrics: ServeMetrics, health: @escaping @Sendable () -> (json: String, notServing: Bool)
  ) -> Router<BasicRequestContext> {
    let router = Router()
    router.get("/metrics") { _, _ -> Response in
      let text = await metrics.snapshot().render()
      return Response(
        status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
        body: .init(byteBuffer: ByteBuffer(string: text)))
    }
    router.get("/livez") { _, _ -> Response in
      ProbeJSON.response(#"{"status":"live"}"#, status: .ok)
    }
    router.get("/readyz") { _, _ -> Response in
      let readiness = metrics.readiness()
      return ProbeJSON.response(readiness.json, status: readiness.isReady ? .ok : .serviceUnavailable)
    }
    router.get("/health") { _, _ -> Response in
      let (body, notServing) = health()
      return ProbeJSON.response(body, status: notServing ? .serviceUnavailable : .ok)
    }
    return router
  }

  /// Listens and answers until graceful shutdown; fails naming `service.adminListen` when it
  /// cannot listen.
  public func run() async throws {
    try await HTTPListener.run(application, key: "service.adminListen", address: config.address, bound: bound)
    if !(await bound.isSet) { await bound.set(0) }
  }

  /// The port it listens on once it does; 0 when it could not, or `run()` ended before it listened.
  public func boundPort() async -> Int {
    await bound.value()
  }
}
