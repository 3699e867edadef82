import GRPCCore
import GRPCNIOTransportHTTP2Posix
import Logging
import NIOCore
import ServiceLifecycle
import TollgateCallers
import TollgateHTTPListener
import TollgateServer

/// serve's gRPC door: `service Entitlements` of proto/tollgate.proto and `grpc.health.v1.Health`
/// over HTTP/2 (grpc-swift-2's NIO transport), on its own listener, answered by the fast port's
/// `EntitlementsHandler`, with the callers, keys, scopes and limits of the shared `CallerGate`
/// (`authorization: Bearer <key>` metadata, checked by `CallerInterceptor`). docs/grpc.md.
///
/// A `Service`: `run()` listens until the graceful shutdown, then stops taking calls, lets the
/// ones in flight finish (health watchers are told NOT_SERVING and ended) and returns.
public final class GRPCDoor: Service, Sendable {
  public struct Config: Sendable {
    /// Where to listen; port 0 takes any free port (`listeningAddress()` tells which).
    public var address: ListenAddress
    /// TLS (mutual with a client CA) on the listener; nil: plaintext HTTP/2 (h2c).
    public var tls: DoorTLS?
    /// Open connections at once; one more is closed before anything of it is read.
    public var maximumConnections = 1_000
    /// Calls in flight on one connection (HTTP/2 `SETTINGS_MAX_CONCURRENT_STREAMS`); a client
    /// opening more gets its streams refused.
    public var maximumConcurrentStreams = 64
    /// The largest request message; a larger one fails with RESOURCE_EXHAUSTED before it is decoded.
    public var maximumPayloadLength = 1 << 20
    /// A connection without a call in flight this long is closed (GOAWAY).
    public var idleTimeout: Duration = .seconds(300)
    /// A connection that has not finished its TLS handshake and sent the HTTP/2 connection
    /// preface this long after opening is closed.
    public var handshakeTimeout: Duration = .seconds(5)
    /// How often a health watcher's status is looked at again.
    public var healthPollInterval: Duration = .seconds(1)
    /// `grpc.health.v1.Health/Watch` calls at once (they need no key); one more is answered
    /// RESOURCE_EXHAUSTED.
    public var maximumHealthWatchers = 100

    public init(address: ListenAddress) {
      self.address = address
    }
  }

  public let config: Config
  private let server: GRPCServer<HTTP2ServerTransport.Posix>
  private let transport: HTTP2ServerTransport.Posix
  private let shutdown: DoorShutdown
  /// Whether the transport began to bind its listener, or the door stopped first.
  private let listening: OneShot<Listening>
  let connectionLimits: GRPCConnectionLimits
  /// The health Watch calls running now.
  let healthWatchers: HealthWatchers
  private let logger: Logger

  /// - Parameters:
  ///   - handler: the fast port's handler (the same instance), admin calls through its `admin`.
  ///   - gate: the gate every door shares.
  /// - Throws: `GRPCDoorError` when the address's host does not resolve, or a TLS file cannot be
  ///   read.
  ///   - calls: where the door records its calls for serve's metrics (nil: nowhere).
  public init(
    config: Config, handler: any EntitlementsHandler, gate: CallerGate, logger: Logger,
    calls: DoorCallRecorder? = nil
  ) throws(GRPCDoorError) {
    self.config = config
    self.logger = logger
    do {
      try config.tls?.check(key: "service.grpc.tls")
    } catch {
      throw GRPCDoorError(message: error.description)
    }
    let listening = OneShot<Listening>()
    self.listening = listening
    let shutdown = DoorShutdown()
    self.shutdown = shutdown
    let healthWatchers = HealthWatchers(maximum: config.maximumHealthWatchers)
    self.healthWatchers = healthWatchers
    let limits = GRPCConnectionLimits(
      maximumConnections: config.maximumConnections, handshakeTimeout: TimeAmount(config.handshakeTimeout))
    connectionLimits = limits
    let transportConfig = HTTP2ServerTransport.Posix.Config.defaults { transport in
      transport.rpc.maxRequestPayloadSize = config.maximumPayloadLength
      transport.http2.maxConcurrentStreams = config.maximumConcurrentStreams
      transport.connection.maxIdleTime = config.idleTimeout
      transport.channelDebuggingCallbacks.onAcceptTCPConnection = { limits.install(on: $0) }
      transport.channelDebuggingCallbacks.onBindTCPListener = { channel in
        listening.fire(.binding)
        return channel.eventLoop.makeSucceededVoidFuture()
      }
    }
    transport = HTTP2ServerTransport.Posix(
      address: try Self.socketAddress(config.address), transportSecurity: config.tls?.transportSecurity ?? .plaintext,
      config: transportConfig)
    server = GRPCServer(
      transport: transport,
      services: Self.services(
        handler: handler, gate: gate, shutdown: shutdown, healthPollInterval: config.healthPollInterval,
        healthWatchers: healthWatchers),
      interceptors: Self.interceptors(gate: gate, limits: limits, calls: calls, logger: logger))
  }

  /// Every call gets its request id first (`RequestIDInterceptor`), is recorded (when `calls` is
  /// set), then checked by `CallerInterceptor`.
  private static func interceptors(
    gate: CallerGate, limits: GRPCConnectionLimits, calls: DoorCallRecorder?, logger: Logger
  ) -> [any ServerInterceptor] {
    var interceptors: [any ServerInterceptor] = [RequestIDInterceptor()]
    if let calls { interceptors.append(CallRecordingInterceptor(recorder: calls)) }
    interceptors.append(CallerInterceptor(gate: gate, logger: logger, admitted: { limits.proven(peer: $0) }))
    return interceptors
  }

  /// Connections open now (serve's metrics).
  public var openConnections: Int { connectionLimits.openConnections }

  /// Connections refused or closed by a limit since the door started, by reason (serve's metrics).
  public var refusedConnections: [String: UInt64] {
    [
      "over_capacity": UInt64(connectionLimits.refusedConnections),
      "evicted_unproven": UInt64(connectionLimits.evictedConnections),
      "preface_timeout": UInt64(connectionLimits.prefaceTimeouts),
    ]
  }

  /// The door's services, for any transport (the tests also serve them in process); every call
  /// goes through a `CallerInterceptor` first.
  static func services(
    handler: any EntitlementsHandler, gate: CallerGate, shutdown: DoorShutdown, healthPollInterval: Duration,
    healthWatchers: HealthWatchers = HealthWatchers()
  ) -> [any RegistrableRPCService] {
    [
      EntitlementsGRPCService(handler: handler, gate: gate),
      HealthGRPCService(
        handler: handler, shutdown: shutdown, pollInterval: healthPollInterval, watchers: healthWatchers),
    ]
  }

  public func run() async throws {
    do {
      try await withGracefulShutdownHandler {
        try await server.serve()
      } onGracefulShutdown: {
        self.beginGracefulShutdown()
      }
    } catch {
      listening.fire(.stopped)
      throw error
    }
    listening.fire(.stopped)
  }

  /// Stops taking calls; `run()` returns once the calls in flight have finished.
  public func beginGracefulShutdown() {
    shutdown.begin()
    server.beginGracefulShutdown()
  }

  private enum Listening: Sendable {
    case binding
    case stopped
  }

  /// The address the door listens on, once it does (the port chosen for port 0). Throws when it
  /// could not listen, stopped before it did, or the waiting task is cancelled.
  public func listeningAddress() async throws -> ListenAddress {
    switch await listening.wait() {
    case .binding: break
    case .stopped: throw GRPCDoorError(message: "the gRPC door stopped before it listened")
    case nil: throw CancellationError()
    }
    // Bound or failed by now: the transport's answer does not keep us waiting.
    let address = try await transport.listeningAddress
    if let ipv4 = address.ipv4 { return ListenAddress(host: ipv4.host, port: ipv4.port) }
    if let ipv6 = address.ipv6 { return ListenAddress(host: ipv6.host, port: ipv6.port) }
    throw GRPCDoorError(message: "the gRPC door listens on no TCP address (\(address))")
  }

  /// The transport's address for `address`: an IP address as it is, a host name resolved once
  /// (the first address it has).
  static func socketAddress(_ address: ListenAddress) throws(GRPCDoorError) -> GRPCNIOTransportCore.SocketAddress {
    if let literal = try? NIOCore.SocketAddress(ipAddress: address.host, port: address.port) {
      return literal.protocol == .inet6
        ? .ipv6(host: address.host, port: address.port) : .ipv4(host: address.host, port: address.port)
    }
    let resolved: NIOCore.SocketAddress
    do {
      resolved = try NIOCore.SocketAddress.makeAddressResolvingHost(address.host, port: address.port)
    } catch {
      throw GRPCDoorError(message: "service.grpc.listen: the host of \(address) does not resolve: \(error)")
    }
    guard let host = resolved.ipAddress else {
      throw GRPCDoorError(message: "service.grpc.listen: the host of \(address) is no IP host")
    }
    return resolved.protocol == .inet6 ? .ipv6(host: host, port: address.port) : .ipv4(host: host, port: address.port)
  }
}

/// Why the gRPC door cannot start.
public struct GRPCDoorError: Error, Sendable, CustomStringConvertible {
  public var message: String

  public init(message: String) {
    self.message = message
  }

  public var description: String { message }
}
