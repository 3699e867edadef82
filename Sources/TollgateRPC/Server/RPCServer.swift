import CTollgateNet
import Glibc
import Logging
import NIOCore
import Synchronization

/// A TCP server speaking protobuf-c-rpc's default protocol for `service Entitlements`, on its own
/// event-loop threads (`ServerLoop`).
public final class RPCServer: Sendable {
  public struct Config: Sendable {
    /// Payloads longer than this are refused with `serviceFailed`; their bytes are discarded.
    public var maximumPayloadLength: Int
    /// Deferred calls (SubmitPurchase) in flight per connection before `tooManyPending`.
    public var maximumPendingPerConnection: Int
    /// Unwritten answers past which the server stops reading from a connection (resuming below
    /// half of it).
    public var writeBufferHighWatermark: Int
    /// On `close()`, how long deferred calls in flight may take to be answered before their
    /// connections close anyway.
    public var shutdownGracePeriod: Duration

    public static var defaults: Config {
      Config(
        maximumPayloadLength: 1 << 20, maximumPendingPerConnection: 64, writeBufferHighWatermark: 1 << 20,
        shutdownGracePeriod: .seconds(10))
    }

    public init(
      maximumPayloadLength: Int, maximumPendingPerConnection: Int, writeBufferHighWatermark: Int,
      shutdownGracePeriod: Duration = .seconds(10)
    ) {
      self.maximumPayloadLength = maximumPayloadLength
      self.maximumPendingPerConnection = maximumPendingPerConnection
      self.writeBufferHighWatermark = writeBufferHighWatermark
      self.shutdownGracePeriod = shutdownGracePeriod
    }
  }

  /// The address the server listens on (with the real port when bound to port 0).
  public let localAddress: SocketAddress
  private let listenFd: Int32
  private let mailboxes: [LoopMailbox]
  private let exits: [LoopExit]
  private let shutdownGracePeriod: Duration
  private let closing = Mutex(false)

  private init(
    localAddress: SocketAddress, listenFd: Int32, mailboxes: [LoopMailbox], exits: [LoopExit], shutdownGracePeriod: Duration
  ) {
    self.localAddress = localAddress
    self.shutdownGracePeriod = shutdownGracePeriod
    self.listenFd = listenFd
    self.mailboxes = mailboxes
    self.exits = exits
  }

  public var port: Int { localAddress.port ?? 0 }

  /// Binds and starts accepting connections on `threads` event loops (default: one per core).
  public static func bind(
    host: String, port: Int, config: Config = .defaults, handler: any EntitlementsHandler,
    threads: Int = System.coreCount, logger: Logger
  ) async throws -> RPCServer {
    var boundPort: Int32 = 0
    var address = [CChar](repeating: 0, count: 64)
    let listenFd = tg_net_listen(host, Int32(port), 1024, &boundPort, &address, address.count)
    guard listenFd >= 0 else {
      throw listenFd == -2 ? RPCServerError.unresolvableHost(host) : RPCServerError.bindFailed(host: host, port: port, errno: errno)
    }
    let localAddress: SocketAddress
    do {
      let text = String(decoding: address.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      localAddress = try SocketAddress(ipAddress: text, port: Int(boundPort))
    } catch {
      Glibc.close(listenFd)
      throw error
    }

    let shared = ServerLoop.Shared(
      dispatcher: EntitlementsDispatcher(handler: handler), config: config, listenFd: listenFd, logger: logger)
    var mailboxes: [LoopMailbox] = []
    var exits: [LoopExit] = []
    do {
      for number in 0..<max(1, threads) {
        let mailbox = try LoopMailbox()
        let epoll = try ServerLoop.makeEpoll(shared: shared, mailbox: mailbox)
        let exit = LoopExit()
        do {
          try LoopThread.start(name: "tollgate-rpc-\(number)") {
            ServerLoop(shared: shared, mailbox: mailbox, epoll: epoll).run()
            exit.finish()
          }
        } catch {
          Glibc.close(epoll)
          throw error
        }
        mailboxes.append(mailbox)
        exits.append(exit)
      }
    } catch {
      let server = RPCServer(
        localAddress: localAddress, listenFd: listenFd, mailboxes: mailboxes, exits: exits,
        shutdownGracePeriod: config.shutdownGracePeriod)
      try? await server.close()
      throw error
    }
    return RPCServer(
      localAddress: localAddress, listenFd: listenFd, mailboxes: mailboxes, exits: exits,
      shutdownGracePeriod: config.shutdownGracePeriod)
  }

  /// Stops accepting connections and reading requests; every connection closes once its deferred
  /// calls are answered and its answers written, or after `shutdownGracePeriod`. Returns when all
  /// connections are closed.
  public func close() async throws {
    let first = closing.withLock { closing in
      defer { closing = true }
      return !closing
    }
    if first {
      let (seconds, attoseconds) = shutdownGracePeriod.components
      let grace = max(0, seconds) * 1_000_000_000 + max(0, attoseconds) / 1_000_000_000
      let deadline = tg_net_now_ns() + UInt64(grace)
      for mailbox in mailboxes { mailbox.post(.shutdown(deadlineNs: deadline)) }
    }
    await waitUntilClosed()
    if first { Glibc.close(listenFd) }
  }

  /// Completes when the server has closed (after `close()`).
  public func waitUntilClosed() async {
    for exit in exits { await exit.wait() }
  }
}
