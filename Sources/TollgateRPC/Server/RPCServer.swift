import Logging
import NIOCore
import NIOPosix

/// A TCP server speaking protobuf-c-rpc's default protocol for `service Entitlements`.
public final class RPCServer: Sendable {
  public struct Config: Sendable {
    /// Payloads longer than this are refused with `serviceFailed`; their bytes are discarded.
    public var maximumPayloadLength: Int
    /// Deferred calls (SubmitPurchase) in flight per connection before `tooManyPending`.
    public var maximumPendingPerConnection: Int
    /// Write buffer size past which the server stops reading from a connection.
    public var writeBufferHighWatermark: Int

    public static var defaults: Config {
      Config(maximumPayloadLength: 1 << 20, maximumPendingPerConnection: 64, writeBufferHighWatermark: 1 << 20)
    }

    public init(maximumPayloadLength: Int, maximumPendingPerConnection: Int, writeBufferHighWatermark: Int) {
      self.maximumPayloadLength = maximumPayloadLength
      self.maximumPendingPerConnection = maximumPendingPerConnection
      self.writeBufferHighWatermark = writeBufferHighWatermark
    }
  }

  private let channel: any Channel
  /// The address the server listens on (with the real port when bound to port 0).
  public let localAddress: SocketAddress

  private init(channel: any Channel) {
    self.channel = channel
    self.localAddress = channel.localAddress!
  }

  public var port: Int { localAddress.port ?? 0 }

  /// Binds and starts accepting connections.
  public static func bind(
    host: String, port: Int, config: Config = .defaults, handler: any EntitlementsHandler,
    group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, logger: Logger
  ) async throws -> RPCServer {
    let dispatcher = EntitlementsDispatcher(handler: handler)
    let channel = try await ServerBootstrap(group: group)
      .serverChannelOption(.backlog, value: 1024)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
      // One read() per readable event: a second would mostly come back empty (EAGAIN), one wasted
      // system call per request when clients do not pipeline. Epoll reports what is left.
      .childChannelOption(.maxMessagesPerRead, value: 1)
      .childChannelOption(
        .writeBufferWaterMark,
        value: .init(low: config.writeBufferHighWatermark / 2, high: config.writeBufferHighWatermark)
      )
      .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          // One handler splits frames and answers them: no per-frame trip through the pipeline.
          try channel.pipeline.syncOperations.addHandler(
            RPCServerHandler(
              dispatcher: dispatcher, maximumPayloadLength: config.maximumPayloadLength,
              maximumPending: config.maximumPendingPerConnection, logger: logger))
        }
      }
      .bind(host: host, port: port)
      .get()
    return RPCServer(channel: channel)
  }

  /// Stops accepting connections. Open connections finish on their own.
  public func close() async throws {
    try await channel.close()
  }

  /// Completes when the listening socket closes.
  public func waitUntilClosed() async throws {
    try await channel.closeFuture.get()
  }
}
