import CTollgateNet
import Glibc
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// A TCP server speaking protobuf-c-rpc's default protocol for `service Entitlements`, on its own
/// event-loop threads (`ServerLoop`), as a `Service`.
///
/// `bind` takes the address (so that a bad address fails, and the port is known, before anything
/// runs); `run` starts the loops and runs the calls they defer until graceful shutdown (or
/// `close()`), then stops accepting, drains the calls in flight and returns once every
/// connection is closed.
public final class RPCServer: Service, Sendable {
  public struct Config: Sendable {
    /// Payloads longer than this are refused with `serviceFailed`; their bytes are discarded.
    public var maximumPayloadLength: Int
    /// Deferred calls (SubmitPurchase) in flight per connection before `tooManyPending`.
    public var maximumPendingPerConnection: Int
    /// Unwritten answers past which the server stops reading from a connection (resuming below
    /// half of it).
    public var writeBufferHighWatermark: Int
    /// On shutdown, how long deferred calls in flight may take to be answered before their
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

  private enum State {
    /// Bound, not run yet.
    case bound
    /// The loops run; `shuttingDown` once they were told to stop.
    case running(mailboxes: [LoopMailbox], shuttingDown: Bool)
    /// Closed before it ran, or its loops have ended.
    case closed
  }

  /// The address the server listens on (with the real port when bound to port 0).
  public let localAddress: SocketAddress
  private let shared: ServerLoop.Shared
  private let threads: Int
  private let state = Mutex(State.bound)
  /// Every loop has ended (or none ever will): signalled once.
  private let ended = LoopExit()

  private init(localAddress: SocketAddress, shared: ServerLoop.Shared, threads: Int) {
    self.localAddress = localAddress
    self.shared = shared
    self.threads = max(1, threads)
  }

  deinit {
    // Never run and never closed: the listener is still open.
    if case .bound = state.withLock({ $0 }) { Glibc.close(shared.listenFd) }
  }

  public var port: Int { localAddress.port ?? 0 }

  /// Listens on `host:port`; `run()` serves on `threads` event loops (nil: one per core).
  /// Connections made before `run()` wait in the listen backlog.
  public static func bind(
    host: String, port: Int, config: Config = .defaults, handler: any EntitlementsHandler,
    threads: Int? = nil, logger: Logger
  ) throws -> RPCServer {
    var boundPort: Int32 = 0
    var address = [CChar](repeating: 0, count: 64)
    let listenFd = tg_net_listen(host, Int32(port), 1024, &boundPort, &address, address.count)
    guard listenFd >= 0 else {
      throw listenFd == -2
        ? RPCServerError.unresolvableHost(host) : RPCServerError.bindFailed(host: host, port: port, errno: errno)
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
      dispatcher: EntitlementsDispatcher(handler: handler), config: config, listenFd: listenFd,
      deferredCalls: DeferredCalls(), logger: logger)
    return RPCServer(localAddress: localAddress, shared: shared, threads: threads ?? System.coreCount)
  }

  /// Serves until graceful shutdown, cancellation or `close()`: then stops accepting and reading,
  /// lets the calls in flight answer (up to `shutdownGracePeriod`; those still running then are
  /// cancelled), closes every connection and returns. Runs once; returns at once if the server
  /// was closed before.
  public func run() async throws {
    let exits: [LoopExit]
    switch startLoops() {
    case .closedBefore:
      return
    case .running:
      throw RPCServerError.notRunnable
    case .failed(let started, let failure):
      for exit in started { await exit.wait() }
      finishClosing()
      throw failure
    case .started(let started):
      exits = started
    }
    let deferredCalls = shared.deferredCalls
    await withTaskCancellationHandler {
      await withGracefulShutdownHandler {
        await withDiscardingTaskGroup { group in
          group.addTask {
            for exit in exits { await exit.wait() }
            deferredCalls.finish()
          }
          for await call in deferredCalls.stream {
            group.addTask { await call.run() }
          }
          // Every loop has ended: a call still running has no connection left to answer.
          group.cancelAll()
        }
      } onGracefulShutdown: {
        self.beginShutdown(graceful: true)
      }
    } onCancel: {
      self.beginShutdown(graceful: false)
    }
    finishClosing()
  }

  /// Every loop has ended: the server is closed.
  private func finishClosing() {
    state.withLock { $0 = .closed }
    closeListener()
  }

  /// Closes the listener and wakes `close()`; called once, by whoever moved the state to closed.
  private func closeListener() {
    Glibc.close(shared.listenFd)
    ended.finish()
  }

  /// Stops the server as graceful shutdown does and returns when every connection is closed (at
  /// once if it never ran).
  public func close() async throws {
    beginShutdown(graceful: true)
    await ended.wait()
  }

  private enum Start {
    case started([LoopExit])
    /// Some loops could not start; those that did were told to stop at once.
    case failed([LoopExit], any Error)
    case closedBefore
    case running
  }

  /// Starts the loops' threads, unless the server was closed before or is running already.
  private func startLoops() -> Start {
    state.withLock { state in
      switch state {
      case .bound: break
      case .running: return .running
      case .closed: return .closedBefore
      }
      var mailboxes: [LoopMailbox] = []
      var exits: [LoopExit] = []
      var failure: (any Error)?
      do {
        for number in 0..<threads {
          let mailbox = try LoopMailbox()
          let epoll = try ServerLoop.makeEpoll(shared: shared, mailbox: mailbox)
          let exit = LoopExit()
          let shared = self.shared
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
        for mailbox in mailboxes { mailbox.post(.shutdown(deadlineNs: 0)) }
        failure = error
      }
      state = .running(mailboxes: mailboxes, shuttingDown: failure != nil)
      return failure.map { .failed(exits, $0) } ?? .started(exits)
    }
  }

  /// Tells every loop to stop accepting and reading; with `graceful`, deferred calls get
  /// `shutdownGracePeriod` to answer, else connections close at once.
  private func beginShutdown(graceful: Bool) {
    let grace = graceful ? shared.config.shutdownGracePeriod : .zero
    let (seconds, attoseconds) = grace.components
    let deadline = tg_net_now_ns() + UInt64(max(0, seconds) * 1_000_000_000 + max(0, attoseconds) / 1_000_000_000)
    let toldNow = state.withLock { state -> [LoopMailbox]? in
      switch state {
      case .bound:
        state = .closed
        return nil
      case .running(let mailboxes, let shuttingDown):
        // A second, harsher request (cancellation after graceful shutdown) shortens the deadline.
        guard !shuttingDown || !graceful else { return [] }
        state = .running(mailboxes: mailboxes, shuttingDown: true)
        return mailboxes
      case .closed:
        return []
      }
    }
    // Never ran: nothing to drain.
    guard let toldNow else { return closeListener() }
    for mailbox in toldNow { mailbox.post(.shutdown(deadlineNs: deadline)) }
  }
}
