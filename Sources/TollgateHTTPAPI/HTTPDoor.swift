import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import TollgateCallers
import TollgateHTTPListener
import TollgateServer

/// The HTTP/JSON door of `serve` (`service.http`): the routes of `HTTPRoutes.all`, answered by the
/// same `EntitlementsHandler` as the fast port, with callers identified by `authorization: Bearer`
/// through the same `CallerGate`. It listens through `HTTPListener`, so its connections are
/// guarded as the worker's are: a connection cap, head and request deadlines, a minimum body rate,
/// an idle timeout, and a refused body never read. With `tls` it speaks TLS only (mutual TLS with
/// a client CA), through the same guard: a handshake that never finishes is cut at the first
/// head's deadline.
///
/// Run it in a service group that is only ever shut down gracefully: cancelling a Hummingbird
/// listener drops connections it accepted but had not handed to a handler, whose writers trap.
public final class HTTPDoor: Service, Sendable {
  public struct Config: Sendable {
    public var address: ListenAddress
    /// TLS (mutual with a client CA) on the listener (`service.http.tls`); nil: plain HTTP/1.1.
    public var tls: DoorTLS?
    public var maximumConnections = 1_000
    /// A connection that sends nothing for this long is closed.
    public var idleTimeout: TimeAmount = .seconds(60)
    /// A request head must be complete this long after its first bytes, and the first one (the
    /// TLS handshake included) this long after the connection opened.
    public var headerTimeout: TimeAmount = .seconds(10)
    /// A whole request, head and body, must be complete this long after its first bytes.
    public var requestTimeout: TimeAmount = .seconds(30)
    /// A body must average this many bytes a second once `bodyRateGrace` has passed.
    public var minimumBodyBytesPerSecond = 1_024
    public var bodyRateGrace: TimeAmount = .seconds(5)
    /// A connection that has not sent a request with an accepted key this long after it
    /// connected is closed, however busy (keyless `/healthz` calls, refused keys): as the fast
    /// port's `unauthenticatedTimeoutMs`.
    public var unprovenTimeout: TimeAmount = .seconds(10)
    /// `POST /v1/purchases`' body, at most: `serve` sets the fast port's `maxMessageBytes`.
    public var maximumPurchaseBodyBytes = 1 << 20
    /// An admin route's body, at most.
    public var maximumAdminBodyBytes = 64 << 10
    /// Pages answered under a path prefix outside the bearer-key check (the support console,
    /// `DoorMount`): they check their own callers.
    public var mounts: [DoorMount] = []

    public init(address: ListenAddress) {
      self.address = address
    }

    public init(host: String, port: Int) {
      self.init(address: ListenAddress(host: host, port: port))
    }
  }

  public let config: Config
  private let application: Application<RouterResponder<DoorRequestContext>>
  private let bound = BoundPort()
  private let limits: HTTPListenerLimits

  /// Connections open now (serve's metrics).
  public var openConnections: Int { limits.openConnections }

  /// - Parameter countCut: told each connection the listener's guard closes (`HTTPListenerLimits`),
  ///   with the reason, for a metric.
  /// - Throws: `DoorTLSError` when a TLS file cannot be used, naming its key
  ///   (`service.http.tls.certificateFile`) and the file.
  public init(
    config: Config, handler: any EntitlementsHandler, gate: CallerGate, logger: Logger,
    countCut: @escaping @Sendable (_ listener: String, _ reason: String) -> Void = { _, _ in },
    calls: DoorCallRecorder? = nil
  ) throws(DoorTLSError) {
    self.config = config
    let limits = HTTPListenerLimits(
      listener: "service.http", headerTimeout: config.headerTimeout, requestTimeout: config.requestTimeout,
      minBodyBytesPerSecond: config.minimumBodyBytesPerSecond, bodyRateGrace: config.bodyRateGrace,
      maxConnections: config.maximumConnections, firstHeadTimeout: config.headerTimeout,
      unprovenTimeout: config.unprovenTimeout, countCut: countCut)
    self.limits = limits
    let router = Self.router(config: config, handler: handler, gate: gate, logger: logger, calls: calls)
    if let tls = config.tls {
      application = try HTTPListener.application(
        router: router, address: config.address, tls: tls, key: "service.http.tls", limits: limits,
        idleTimeout: config.idleTimeout, bound: bound, logger: logger)
    } else {
      application = HTTPListener.application(
        router: router, address: config.address, limits: limits, idleTimeout: config.idleTimeout, bound: bound,
        logger: logger)
    }
  }

  /// The door's router alone (tests answer it without a socket, `app.test(.router)`).
  public static func router(
    config: Config, handler: any EntitlementsHandler, gate: CallerGate, logger: Logger,
    calls: DoorCallRecorder? = nil
  ) -> Router<DoorRequestContext> {
    let router = Router(context: DoorRequestContext.self)
    router.add(middleware: RequestIDMiddleware())
    HTTPRoutes.register(
      on: router,
      routes: DoorRoutes(
        handler: handler, gate: gate, maximumPurchaseBodyBytes: config.maximumPurchaseBodyBytes,
        maximumAdminBodyBytes: config.maximumAdminBodyBytes, logger: logger, calls: calls))
    for mount in config.mounts { mount.register(on: router, isTLS: config.tls != nil) }
    return router
  }

  /// Listens and answers until graceful shutdown; fails naming `service.http.listen` when it
  /// cannot listen.
  public func run() async throws {
    try await HTTPListener.run(application, key: "service.http.listen", address: config.address, bound: bound)
    // Shut down before it listened: whoever waits for the port learns it will not come.
    if !(await bound.isSet) { await bound.set(0) }
  }

  /// The port it listens on once it does (the one the system chose for port 0); 0 when it could
  /// not, or `run()` ended before it listened.
  public func boundPort() async -> Int {
    await bound.value()
  }

}
