import CTollgateNet
import Glibc
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
import TollgateCallers

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
    /// Who may call: everyone (no callers configured) or configured callers.
    public var access: CallerAccess = .open
    /// The gate every door shares (`tollgate serve` builds one with `makeGate()` and gives it to
    /// each). When set, it replaces `access` and the two limiters' numbers below; nil: the server
    /// builds its own from them.
    public var gate: CallerGate?
    /// Connections open at once, over every listener; more are closed as soon as accepted.
    public var maximumConnections = 10_000
    /// A connection with nothing received, pending or unwritten for this long is closed.
    public var idleTimeout: Duration = .seconds(300)
    /// A request frame begun must be complete within this; else its connection is closed.
    public var readTimeout: Duration = .seconds(10)
    /// Bytes of partial request frames held over every connection; a connection whose frame
    /// would pass it is closed.
    public var maximumBufferedBytes = 256 << 20
    /// A TLS handshake not finished this long after its connection was accepted closes it.
    public var handshakeTimeout: Duration = .seconds(5)
    /// Answers waiting this long for a socket that takes none of them close the connection (a
    /// peer that sends requests and never reads), whatever else it sends.
    public var writeTimeout: Duration = .seconds(10)
    /// With callers configured: a connection without an authenticated caller this long after it
    /// opened (or after its caller was removed) is closed.
    public var unauthenticatedTimeout: Duration = .seconds(10)
    /// Slots kept for connections that proved themselves: once fewer than this many of
    /// `maximumConnections` are free, a new connection closes its loop's oldest connection that
    /// has answered nothing yet or has no authenticated caller (callers configured), rather than
    /// being refused when the cap is reached. Nil: a tenth of `maximumConnections`.
    public var reservedConnections: Int?
    /// With callers configured: the longest payload a connection without an authenticated caller
    /// may announce (Authenticate is small); longer ones are refused as over `maximumPayloadLength`.
    public var maximumUnauthenticatedPayloadLength = 4_096
    /// SubmitPurchase calls per second per caller (a token bucket holding `submitBurstPerCaller`);
    /// more are answered with ERROR_CODE_RESOURCE_EXHAUSTED.
    public var submitsPerSecondPerCaller = 50
    public var submitBurstPerCaller = 100
    /// Failed Authenticate calls on one connection after which it is closed (a success in
    /// between resets nothing).
    public var maximumFailedAuthentications = 3
    /// Failed Authenticate calls per source address (an IPv4 address, an IPv6 /64, a Unix
    /// socket's peer user), over every connection: a token bucket holding
    /// `failedAuthenticationBurstPerSource`, refilled at this rate. A source with none left has
    /// its Authenticate calls answered RESOURCE_EXHAUSTED, its key unchecked, and is disconnected.
    public var failedAuthenticationsPerMinutePerSource = 10
    public var failedAuthenticationBurstPerSource = 10
    /// Sources the authentication limiter keeps a bucket for; past it, new sources share one.
    public var authenticationSourcesTracked = 16_384

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

  /// A listener as bound: its address with the real port when bound to port 0.
  public struct BoundListener: Sendable, Hashable {
    public var address: RPCListenAddress
    public var isTLS: Bool
    /// The TCP address (nil for a Unix socket).
    public var socketAddress: SocketAddress?
  }

  private enum State {
    /// Bound, not run yet.
    case bound
    /// The loops run; `shuttingDown` once they were told to stop.
    case running(mailboxes: [LoopMailbox], shuttingDown: Bool)
    /// Closed before it ran, or its loops have ended.
    case closed
  }

  /// The first TCP listener's address (with the real port when bound to port 0); for a server
  /// that listens on a Unix socket only, that socket's path.
  public let localAddress: SocketAddress
  /// Every listener, in the order given.
  public let listeners: [BoundListener]
  private let shared: ServerLoop.Shared
  private let threads: Int
  private let state = Mutex(State.bound)
  /// Every loop has ended (or none ever will): signalled once.
  private let ended = LoopExit()

  private init(listeners: [BoundListener], shared: ServerLoop.Shared, threads: Int) throws {
    self.listeners = listeners
    if let tcp = listeners.lazy.compactMap(\.socketAddress).first {
      localAddress = tcp
    } else if case .unix(let path) = listeners.first?.address {
      localAddress = try SocketAddress(unixDomainSocketPath: path)
    } else {
      throw RPCServerError.noListeners
    }
    self.shared = shared
    self.threads = max(1, threads)
  }

  deinit {
    // Never run and never closed: the listener is still open.
    if case .bound = state.withLock({ $0 }) { closeListeningSockets() }
  }

  public var port: Int { localAddress.port ?? 0 }

  /// Listens on `host:port`; `run()` serves on `threads` event loops (nil: one per core).
  /// Connections made before `run()` wait in the listen backlog.
  public static func bind(
    host: String, port: Int, config: Config = .defaults, handler: any EntitlementsHandler,
    threads: Int? = nil, logger: Logger
  ) throws -> RPCServer {
    try bind(
      listeners: [.tcp(host: host, port: port)], config: config, handler: handler, threads: threads, logger: logger)
  }

  /// Listens on every address of `listeners` (at least one); `run()` serves them all on
  /// `threads` event loops (nil: one per core).
  public static func bind(
    listeners addresses: [RPCListenAddress], config: Config = .defaults, handler: any EntitlementsHandler,
    threads: Int? = nil, logger: Logger
  ) throws -> RPCServer {
    try bind(
      listeners: addresses.map { RPCListener($0) }, config: config, handler: handler, threads: threads, logger: logger)
  }

  /// Listens on every listener (at least one), TLS ones included.
  public static func bind(
    listeners: [RPCListener], config: Config = .defaults, handler: any EntitlementsHandler,
    threads: Int? = nil, logger: Logger
  ) throws -> RPCServer {
    guard !listeners.isEmpty else { throw RPCServerError.noListeners }
    var sockets: [ListeningSocket] = []
    var bound: [BoundListener] = []
    do {
      for listener in listeners {
        let (socket, listener) = try listen(on: listener.address, tls: listener.tls)
        sockets.append(socket)
        bound.append(listener)
      }
    } catch {
      for socket in sockets { Glibc.close(socket.fd) }
      throw error
    }
    let dispatcher = EntitlementsDispatcher(
      handler: handler, gate: config.gate ?? config.makeGate(),
      maximumFailedAuthentications: max(1, config.maximumFailedAuthentications), logger: logger)
    let shared = ServerLoop.Shared(
      dispatcher: dispatcher, config: config, listeners: sockets, deferredCalls: DeferredCalls(),
      counters: ServerCounters(), logger: logger)
    do {
      return try RPCServer(listeners: bound, shared: shared, threads: threads ?? System.coreCount)
    } catch {
      for socket in sockets { Glibc.close(socket.fd) }
      throw error
    }
  }

  private static func listen(
    on address: RPCListenAddress, tls: TLSServerContext?
  ) throws -> (ListeningSocket, BoundListener) {
    switch address {
    case .tcp(let host, let port):
      var boundPort: Int32 = 0
      var text = [CChar](repeating: 0, count: 64)
      let fd = tg_net_listen(host, Int32(port), 1024, &boundPort, &text, text.count)
      guard fd >= 0 else {
        throw fd == -2
          ? RPCServerError.unresolvableHost(host) : RPCServerError.bindFailed(host: host, port: port, errno: errno)
      }
      do {
        let numeric = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let socketAddress = try SocketAddress(ipAddress: numeric, port: Int(boundPort))
        return (
          ListeningSocket(fd: fd, address: address, tls: tls),
          BoundListener(
            address: .tcp(host: numeric, port: Int(boundPort)), isTLS: tls != nil, socketAddress: socketAddress)
        )
      } catch {
        Glibc.close(fd)
        throw error
      }
    case .unix(let path):
      let fd = tg_net_listen_unix(path, 1024)
      guard fd >= 0 else { throw RPCServerError.unixSocketFailed(path: path, errno: errno) }
      return (
        ListeningSocket(fd: fd, address: address, tls: tls),
        BoundListener(address: address, isTLS: tls != nil, socketAddress: nil)
      )
    }
  }

  /// Open connections, over every listener.
  public var openConnections: Int { shared.counters.openConnections }
  /// The loops' mailboxes while they run (a scrape asks each, `metrics()`); none otherwise.
  var runningMailboxes: [LoopMailbox] {
    state.withLock {
      guard case .running(let mailboxes, _) = $0 else { return [] }
      return mailboxes
    }
  }
  /// Bytes held for partial request frames, over every connection.
  public var bufferedBytes: Int { shared.counters.buffered }

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

  /// Closes the listeners and wakes `close()`; called once, by whoever moved the state to closed.
  private func closeListener() {
    closeListeningSockets()
    ended.finish()
  }

  /// Closes the listening sockets and removes the Unix sockets' files.
  private func closeListeningSockets() {
    for socket in shared.listeners {
      Glibc.close(socket.fd)
      if case .unix(let path) = socket.address { unlink(path) }
    }
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
