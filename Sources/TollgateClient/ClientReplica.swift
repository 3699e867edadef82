import NIOCore
import NIOPosix
import NIOSSL
import SwiftProtobuf
import Synchronization
import TollgateContract
import TollgateWire

/// One server of a client (a replica of `tollgate serve`): its connection, made on first use and
/// again after it broke, and its health for the client's choice of server (skipped for a back-off
/// period after a failure).
final class ClientReplica: Sendable {
  let endpoint: TollgateClient.Endpoint
  private let config: TollgateClient.Config
  private let group: any EventLoopGroup
  /// Made once from `config.tls`, shared by the client's replicas.
  private let sslContext: NIOSSLContext?
  private let connection = Mutex<Connection>(Connection())
  private let health = Mutex<Health>(Health())

  private struct Connection {
    var channel: EventLoopFuture<any Channel>?
    var generation = 0
  }

  private struct Health {
    /// Failures in a row; 0 while the replica answers.
    var failures = 0
    /// Until when the client prefers other replicas.
    var skipUntil: ContinuousClock.Instant?
  }

  init(
    endpoint: TollgateClient.Endpoint, config: TollgateClient.Config, group: any EventLoopGroup,
    sslContext: NIOSSLContext?
  ) {
    self.endpoint = endpoint
    self.config = config
    self.group = group
    self.sslContext = sslContext
  }

  // MARK: Health

  /// When the back-off of the latest failure ends; nil while the replica is not backed off.
  func backedOffUntil(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
    health.withLock { state in
      guard let until = state.skipUntil, until > now else { return nil }
      return until
    }
  }

  /// The connection died or could not be made: skip this replica for `replicaBackoff`, doubled
  /// for each further failure in a row up to `replicaBackoffMax`, and connect afresh next time.
  func recordFailure(now: ContinuousClock.Instant) {
    health.withLock { state in
      state.failures += 1
      let doublings = min(state.failures - 1, 20)
      let backoff = min(config.replicaBackoff * (1 << doublings), config.replicaBackoffMax)
      state.skipUntil = now + backoff
    }
  }

  func recordSuccess() {
    health.withLock { state in
      if state.failures != 0 || state.skipUntil != nil {
        state.failures = 0
        state.skipUntil = nil
      }
    }
  }

  // MARK: Calls

  /// Where a failed call failed: before its request left (connecting, authenticating), or after.
  struct CallFailure: Error {
    var error: any Error
    var requestSent: Bool
  }

  /// Sends one frame on this replica's connection and returns the answer frame. Throws
  /// `CallFailure` whose `error` is a `TollgateClientError` or `CancellationError`.
  func callRaw(methodIndex: UInt32, payload: ByteBuffer, timeout: Duration) async throws(CallFailure)
    -> ResponseFrame
  {
    let channel: any Channel
    do {
      channel = try await connectedChannel()
    } catch {
      throw CallFailure(error: error, requestSent: false)
    }
    let promise = channel.eventLoop.makePromise(of: ResponseFrame.self)
    let call = OutboundCall(methodIndex: methodIndex, payload: payload, promise: promise, timeout: .init(timeout))
    do {
      return try await withTaskCancellationHandler {
        channel.writeAndFlush(call).whenFailure { error in
          promise.fail(
            TollgateClientError(code: .connectionClosed, message: "could not send the request", cause: error))
        }
        return try await promise.futureResult.get()
      } onCancel: {
        // The answer, if it comes, finds the promise completed and is dropped.
        promise.fail(CancellationError())
      }
    } catch {
      throw CallFailure(error: error, requestSent: true)
    }
  }

  /// Closes the connection; calls in flight fail with `.connectionClosed`. A later call reconnects.
  func close() async {
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
    _ channel: any Channel, credentials: TollgateClient.Credentials, timeout: TimeAmount
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
