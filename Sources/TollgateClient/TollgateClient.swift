import NIOCore
import NIOPosix
import SwiftProtobuf
import Synchronization
// The contract's message types are part of this library's API: a caller needs only
// `import TollgateClient`.
@_exported import TollgateContract
import TollgateWire

/// A client of the Tollgate entitlement service: one TCP connection that carries many calls at
/// once (answers are matched by request id), per-call timeouts, and a fresh connection on the next
/// call after the old one broke. A cancelled call returns at once with `CancellationError`.
public final class TollgateClient: Sendable {
  public struct Config: Sendable {
    public var connectTimeout: Duration
    /// Default per-call timeout.
    public var callTimeout: Duration
    /// Longest response payload accepted.
    public var maximumResponseLength: Int

    public static var defaults: Config {
      Config(connectTimeout: .seconds(5), callTimeout: .seconds(5), maximumResponseLength: 16 << 20)
    }

    public init(connectTimeout: Duration, callTimeout: Duration, maximumResponseLength: Int) {
      self.connectTimeout = connectTimeout
      self.callTimeout = callTimeout
      self.maximumResponseLength = maximumResponseLength
    }
  }

  public let host: String
  public let port: Int
  public let config: Config
  private let group: any EventLoopGroup
  private let connection = Mutex<Connection>(Connection())

  private struct Connection {
    var channel: EventLoopFuture<any Channel>?
    var generation = 0
  }

  /// A client of `host:port`, on `group`'s event loops (by default NIO's shared singleton).
  public init(
    host: String, port: Int, config: Config = .defaults,
    group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
  ) {
    self.host = host
    self.port = port
    self.config = config
    self.group = group
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

  public func health(timeout: Duration? = nil) async throws -> Tollgate_V1_HealthResponse {
    try await call(.health, Tollgate_V1_HealthRequest(), timeout: timeout)
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
    } catch {
      forget(generation: generation)
      throw TollgateClientError(code: .connectionFailed, message: "cannot connect to \(host):\(port)", cause: error)
    }
  }

  private func forget(generation: Int) {
    connection.withLock { state in
      if state.generation == generation { state.channel = nil }
    }
  }

  private func makeConnection() -> EventLoopFuture<any Channel> {
    let maximumResponseLength = config.maximumResponseLength
    return ClientBootstrap(group: group)
      .connectTimeout(.init(config.connectTimeout))
      .channelOption(.socketOption(.tcp_nodelay), value: 1)
      .channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(
            ByteToMessageHandler(ResponseFrameDecoder(maximumPayloadLength: maximumResponseLength)))
          try channel.pipeline.syncOperations.addHandler(ClientConnectionHandler())
        }
      }
      .connect(host: host, port: port)
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
