import NIOCore
import NIOPosix
import NIOSSL
import SwiftProtobuf
import Synchronization
// The contract's message types are part of this library's API: a caller needs only
// `import TollgateClient`.
@_exported import TollgateContract
import TollgateWire

/// A client of the Tollgate entitlement service: one connection (TCP, TLS or a Unix domain
/// socket) that carries many calls at once (answers are matched by request id), per-call
/// timeouts, and a fresh connection on the next call after the old one broke. With credentials,
/// every new connection authenticates before its first call. A cancelled call returns at once with
/// `CancellationError`.
public final class TollgateClient: Sendable {
  public struct Config: Sendable {
    public var connectTimeout: Duration
    /// Default per-call timeout.
    public var callTimeout: Duration
    /// Longest response payload accepted.
    public var maximumResponseLength: Int
    /// The caller to authenticate as on every new connection (nil: the server has no callers).
    public var credentials: Credentials?
    /// TLS towards a TLS listener (NIOSSL's configuration: trust roots, client certificate for
    /// mutual TLS); nil for plaintext. Certificate verification stays on unless this says otherwise.
    public var tls: TLSConfiguration?
    /// The name the server's certificate must carry; by default the host connected to.
    public var tlsServerName: String?

    public static var defaults: Config {
      Config(connectTimeout: .seconds(5), callTimeout: .seconds(5), maximumResponseLength: 16 << 20)
    }

    public init(connectTimeout: Duration, callTimeout: Duration, maximumResponseLength: Int) {
      self.connectTimeout = connectTimeout
      self.callTimeout = callTimeout
      self.maximumResponseLength = maximumResponseLength
    }
  }

  /// A caller's name and secret key. Its description never shows the key.
  public struct Credentials: Sendable, CustomStringConvertible {
    public var caller: String
    public var key: String

    public init(caller: String, key: String) {
      self.caller = caller
      self.key = key
    }

    public var description: String { "Credentials(caller: \(caller))" }
  }

  /// Where the server listens: `host:port`, or a Unix domain socket.
  public enum Endpoint: Sendable, Hashable, CustomStringConvertible {
    case tcp(host: String, port: Int)
    case unixSocket(path: String)

    public var description: String {
      switch self {
      case .tcp(let host, let port): "\(host):\(port)"
      case .unixSocket(let path): "unix:\(path)"
      }
    }
  }

  public let endpoint: Endpoint
  public let config: Config
  private let group: any EventLoopGroup
  /// Made once from `config.tls`.
  private let sslContext: NIOSSLContext?
  private let connection = Mutex<Connection>(Connection())

  private struct Connection {
    var channel: EventLoopFuture<any Channel>?
    var generation = 0
  }

  /// A client of `host:port`, on `group`'s event loops (by default NIO's shared singleton).
  public convenience init(
    host: String, port: Int, config: Config = .defaults,
    group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
  ) {
    try! self.init(endpoint: .tcp(host: host, port: port), config: config, group: group)
  }

  /// A client of `endpoint`. Throws only when `config.tls` cannot be made into a TLS context
  /// (unreadable certificate or key files).
  public init(
    endpoint: Endpoint, config: Config = .defaults, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
  ) throws {
    self.endpoint = endpoint
    self.config = config
    self.group = group
    sslContext = try config.tls.map { try NIOSSLContext(configuration: $0) }
  }

  public var host: String {
    switch endpoint {
    case .tcp(let host, _): host
    case .unixSocket(let path): path
    }
  }

  public var port: Int {
    switch endpoint {
    case .tcp(_, let port): port
    case .unixSocket: 0
    }
  }

  /// Is `userId` entitled to `entitlement` now?
  public func isSubscriber(userId: String, entitlement: String, timeout: Duration? = nil) async throws
    -> Tollgate_V1_IsSubscriberResponse
  {
    var request = Tollgate_V1_IsSubscriberRequest()
    request.userID = userId
    request.entitlement = entitlement
    let response: Tollgate_V1_IsSubscriberResponse = try await call(.isSubscriber, request, timeout: timeout)
    if let error = TollgateClientError(response.hasError ? response.error : nil) { throw error }
    return response
  }

  /// Every subscription and entitlement of `userId`. Throws `.notFound` for an unknown user.
  public func getSubscription(userId: String, timeout: Duration? = nil) async throws
    -> Tollgate_V1_GetSubscriptionResponse
  {
    var request = Tollgate_V1_GetSubscriptionRequest()
    request.userID = userId
    let response: Tollgate_V1_GetSubscriptionResponse = try await call(.getSubscription, request, timeout: timeout)
    if let error = TollgateClientError(response.hasError ? response.error : nil) { throw error }
    return response
  }

  /// Submits a purchase for verification.
  public func submitPurchase(_ request: Tollgate_V1_SubmitPurchaseRequest, timeout: Duration? = nil) async throws
    -> Tollgate_V1_SubmitPurchaseResponse
  {
    let response: Tollgate_V1_SubmitPurchaseResponse = try await call(.submitPurchase, request, timeout: timeout)
    if let error = TollgateClientError(response.hasError ? response.error : nil) { throw error }
    return response
  }

  /// A submission's status now (for a SubmitPurchase whose wait ran out). Throws `.notFound` for
  /// an id this caller did not submit.
  public func getSubmission(submissionId: String, timeout: Duration? = nil) async throws
    -> Tollgate_V1_GetSubmissionResponse
  {
    var request = Tollgate_V1_GetSubmissionRequest()
    request.submissionID = submissionId
    let response: Tollgate_V1_GetSubmissionResponse = try await call(.getSubmission, request, timeout: timeout)
    if let error = TollgateClientError(response.hasError ? response.error : nil) { throw error }
    return response
  }

  /// The service's health. Throws the response's error (UNAUTHENTICATED, PERMISSION_DENIED).
  public func health(timeout: Duration? = nil) async throws -> Tollgate_V1_HealthResponse {
    let response: Tollgate_V1_HealthResponse = try await call(.health, Tollgate_V1_HealthRequest(), timeout: timeout)
    if let error = TollgateClientError(response.hasError ? response.error : nil) { throw error }
    return response
  }

  /// Sends one typed request and decodes the typed answer.
  public func call<Request: SwiftProtobuf.Message, Response: SwiftProtobuf.Message>(
    _ method: EntitlementsMethod, _ request: Request, timeout: Duration? = nil
  ) async throws -> Response {
    let bytes: [UInt8] = try request.serializedBytes()
    let frame = try await callRaw(methodIndex: method.rawValue, payload: ByteBuffer(bytes: bytes), timeout: timeout)
    switch frame.status {
    case .success:
      do {
        return try Response(serializedBytes: frame.payload.readableBytesSpan)
      } catch {
        throw TollgateClientError(code: .invalidResponse, message: "undecodable \(method.name) response", cause: error)
      }
    case .serviceFailed:
      throw TollgateClientError(code: .serviceFailed, message: "the server could not run \(method.name)")
    case .tooManyPending:
      throw TollgateClientError(code: .tooManyPending, message: "too many requests in flight on this connection")
    }
  }

  /// Sends one frame with any method index and payload and returns the server's frame as it came.
  func callRaw(methodIndex: UInt32, payload: ByteBuffer, timeout: Duration?) async throws -> ResponseFrame {
    try Task.checkCancellation()
    let channel = try await connectedChannel()
    let promise = channel.eventLoop.makePromise(of: ResponseFrame.self)
    let call = OutboundCall(
      methodIndex: methodIndex, payload: payload, promise: promise, timeout: .init(timeout ?? config.callTimeout))
    return try await withTaskCancellationHandler {
      channel.writeAndFlush(call).whenFailure { error in
        promise.fail(TollgateClientError(code: .connectionClosed, message: "could not send the request", cause: error))
      }
      return try await promise.futureResult.get()
    } onCancel: {
      // The answer, if it comes, finds the promise completed and is dropped.
      promise.fail(CancellationError())
    }
  }

  /// Closes the connection; calls in flight fail with `.connectionClosed`. A later call reconnects.
  public func close() async {
    let channel = connection.withLock { state -> EventLoopFuture<any Channel>? in
      defer { state.channel = nil }
      return state.channel
    }
    if let channel = try? await channel?.get() {
      try? await channel.close()
    }
  }

  private func connectedChannel(attempt: Int = 0) async throws -> any Channel {
    let (future, generation) = connection.withLock { state -> (EventLoopFuture<any Channel>, Int) in
      if let existing = state.channel { return (existing, state.generation) }
      state.generation += 1
      let future = makeConnection()
      state.channel = future
      return (future, state.generation)
    }
    do {
      let channel = try await future.get()
      if channel.isActive { return channel }
      forget(generation: generation)
      // The old connection broke: connect once more, and no more than that.
      guard attempt == 0 else {
        throw TollgateClientError(code: .connectionClosed, message: "the server closed the new connection at once")
      }
      return try await connectedChannel(attempt: 1)
    } catch let error as TollgateClientError where error.code == .unauthenticated {
      forget(generation: generation)
      throw error
    } catch {
      forget(generation: generation)
      throw TollgateClientError(code: .connectionFailed, message: "cannot connect to \(endpoint)", cause: error)
    }
  }

  private func forget(generation: Int) {
    connection.withLock { state in
      if state.generation == generation { state.channel = nil }
    }
  }

  private func makeConnection() -> EventLoopFuture<any Channel> {
    let maximumResponseLength = config.maximumResponseLength
    let sslContext = self.sslContext
    let serverName: String? =
      switch endpoint {
      case .tcp(let host, _): config.tlsServerName ?? host
      case .unixSocket: config.tlsServerName
      }
    var bootstrap = ClientBootstrap(group: group)
      .connectTimeout(.init(config.connectTimeout))
      .channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          if let sslContext {
            // An IP address is checked against the certificate's IP entries; SNI carries names only.
            let isAddress = serverName.map { (try? SocketAddress(ipAddress: $0, port: 0)) != nil } ?? true
            try channel.pipeline.syncOperations.addHandler(
              NIOSSLClientHandler(context: sslContext, serverHostname: isAddress ? nil : serverName))
          }
          try channel.pipeline.syncOperations.addHandler(
            ByteToMessageHandler(ResponseFrameDecoder(maximumPayloadLength: maximumResponseLength)))
          try channel.pipeline.syncOperations.addHandler(ClientConnectionHandler())
        }
      }
    let connected: EventLoopFuture<any Channel>
    switch endpoint {
    case .tcp(let host, let port):
      bootstrap = bootstrap.channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
      connected = bootstrap.connect(host: host, port: port)
    case .unixSocket(let path):
      connected = bootstrap.connect(unixDomainSocketPath: path)
    }
    guard let credentials = config.credentials else { return connected }
    let timeout = TimeAmount(config.callTimeout)
    return connected.flatMap { channel in
      Self.authenticate(channel, credentials: credentials, timeout: timeout)
    }
  }

  /// Sends Authenticate first on a new connection; fails (and closes it) when the server refuses.
  private static func authenticate(
    _ channel: any Channel, credentials: Credentials, timeout: TimeAmount
  ) -> EventLoopFuture<any Channel> {
    var request = Tollgate_V1_AuthenticateRequest()
    request.caller = credentials.caller
    request.key = credentials.key
    let payload: ByteBuffer
    do {
      payload = ByteBuffer(bytes: try request.serializedBytes() as [UInt8])
    } catch {
      return channel.eventLoop.makeFailedFuture(error)
    }
    let promise = channel.eventLoop.makePromise(of: ResponseFrame.self)
    let call = OutboundCall(
      methodIndex: EntitlementsMethod.authenticate.rawValue, payload: payload, promise: promise, timeout: timeout)
    channel.writeAndFlush(call).cascadeFailure(to: promise)
    return promise.futureResult.flatMapThrowing { frame -> any Channel in
      guard frame.status == .success else {
        throw TollgateClientError(code: .serviceFailed, message: "the server could not run Authenticate")
      }
      let response = try Tollgate_V1_AuthenticateResponse(serializedBytes: frame.payload.readableBytesSpan)
      if let error = TollgateClientError(response.hasError ? response.error : nil) { throw error }
      return channel
    }.flatMapErrorThrowing { error in
      channel.close(promise: nil)
      throw error
    }
  }
}

extension TimeAmount {
  /// `duration` in NIO's terms (whole nanoseconds; saturating).
  init(_ duration: Duration) {
    let (seconds, attoseconds) = duration.components
    let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    self = .nanoseconds(overflow ? (seconds < 0 ? .min : .max) : scaled &+ attoseconds / 1_000_000_000)
  }
}
