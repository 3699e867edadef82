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
/// socket) per server that carries many calls at once (answers are matched by request id),
/// per-call timeouts, and a fresh connection on the next call after the old one broke. With
/// credentials, every new connection authenticates before its first call. A cancelled call
/// returns at once with `CancellationError`.
///
/// Given several servers (replicas of `tollgate serve`), calls go to each healthy one in turn; a
/// call whose connection cannot be made or dies is tried on another replica within its timeout
/// when that is safe (reads always; SubmitPurchase only when its request never left), and the
/// failed replica is skipped for a back-off period (`Config.replicaBackoff`), then tried again
/// (see `TollgateClient+Failover.swift`).
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
    /// With several servers: how long a server whose connection failed or died is skipped (calls
    /// go to the others), doubled for each further failure in a row up to `replicaBackoffMax`.
    /// When every server is backed off, the one whose back-off ends first is tried.
    public var replicaBackoff: Duration = .seconds(1)
    public var replicaBackoffMax: Duration = .seconds(30)

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

  /// The servers, in the order given; calls are spread over them.
  public let endpoints: [Endpoint]
  /// The first server (the only one of a one-server client).
  public var endpoint: Endpoint { endpoints[0] }
  public let config: Config
  let replicas: [ClientReplica]
  /// Where the next call starts looking for a healthy replica.
  let nextReplica = Atomic<Int>(0)

  /// A client of `host:port`, on `group`'s event loops (by default NIO's shared singleton).
  public convenience init(
    host: String, port: Int, config: Config = .defaults,
    group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
  ) {
    try! self.init(endpoint: .tcp(host: host, port: port), config: config, group: group)
  }

  /// A client of `endpoint`. Throws only when `config.tls` cannot be made into a TLS context
  /// (unreadable certificate or key files).
  public convenience init(
    endpoint: Endpoint, config: Config = .defaults, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
  ) throws {
    try self.init(endpoints: [endpoint], config: config, group: group)
  }

  /// A client of several servers (replicas of `tollgate serve` on one database): calls are spread
  /// over the healthy ones and fail over from a dead connection (see the type's description).
  /// `endpoints` must not be empty. Throws only when `config.tls` cannot be made into a TLS
  /// context (unreadable certificate or key files).
  public init(
    endpoints: [Endpoint], config: Config = .defaults, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
  ) throws {
    precondition(!endpoints.isEmpty, "a TollgateClient needs at least one server")
    self.endpoints = endpoints
    self.config = config
    let sslContext = try config.tls.map { try NIOSSLContext(configuration: $0) }
    replicas = endpoints.map { ClientReplica(endpoint: $0, config: config, group: group, sslContext: sslContext) }
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
    let response: Tollgate_V1_IsSubscriberResponse = try await call(
      .isSubscriber, request, timeout: timeout, refused: { Self.isUnavailable($0.hasError ? $0.error : nil) })
    if let error = TollgateClientError(response.hasError ? response.error : nil) { throw error }
    return response
  }

  /// Every subscription and entitlement of `userId`. Throws `.notFound` for an unknown user.
  public func getSubscription(userId: String, timeout: Duration? = nil) async throws
    -> Tollgate_V1_GetSubscriptionResponse
  {
    var request = Tollgate_V1_GetSubscriptionRequest()
    request.userID = userId
    let response: Tollgate_V1_GetSubscriptionResponse = try await call(
      .getSubscription, request, timeout: timeout, refused: { Self.isUnavailable($0.hasError ? $0.error : nil) })
    if let error = TollgateClientError(response.hasError ? response.error : nil) { throw error }
    return response
  }

  /// Submits a purchase for verification. With several servers, a submission is sent to another
  /// replica only when its connection could not be made; one whose connection died after it was
  /// sent fails with `.connectionClosed` or `.deadlineExceeded` (the server may have it: ask
  /// `getSubmission` or submit again, which the server recognises as the same purchase).
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
    let response: Tollgate_V1_GetSubmissionResponse = try await call(
      .getSubmission, request, timeout: timeout, refused: { Self.isUnavailable($0.hasError ? $0.error : nil) })
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
    try await call(method, request, timeout: timeout, refused: { (_: Response) in false })
  }

  /// `call`, where `refused` tells whether an answer is a replica's refusal that another replica
  /// may not give (UNAVAILABLE: it has not loaded its index).
  func call<Request: SwiftProtobuf.Message, Response: SwiftProtobuf.Message>(
    _ method: EntitlementsMethod, _ request: Request, timeout: Duration?, refused: (Response) -> Bool
  ) async throws -> Response {
    let bytes: [UInt8] = try request.serializedBytes()
    return try await callWithFailover(
      methodIndex: method.rawValue, payload: ByteBuffer(bytes: bytes), timeout: timeout,
      decode: { frame in try Self.decode(frame, method) }, refused: refused)
  }

  static func decode<Response: SwiftProtobuf.Message>(_ frame: ResponseFrame, _ method: EntitlementsMethod) throws
    -> Response
  {
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

  static func isUnavailable(_ error: Tollgate_V1_Error?) -> Bool { error?.code == .unavailable }

  /// Sends one frame with any method index and payload and returns the server's frame as it came.
  func callRaw(methodIndex: UInt32, payload: ByteBuffer, timeout: Duration?) async throws -> ResponseFrame {
    try await callWithFailover(methodIndex: methodIndex, payload: payload, timeout: timeout, decode: { $0 })
  }

  /// Closes every connection; calls in flight fail with `.connectionClosed`. A later call
  /// reconnects.
  public func close() async {
    for replica in replicas { await replica.close() }
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
