import CTollgateCrypto
import CTollgateNet
import Glibc
import Logging
import NIOCore
import TollgateContract
import TollgateCore
import TollgateWire

/// One event-loop thread of the RPC server, on epoll directly: a read per readable connection,
/// every frame of it answered into one buffer, one `send` of that buffer; plaintext connections
/// readable in the same wake-up are read first and answered after (`readRound`). What NIO's channel pipeline
/// would add per event (allocations, promises, handler hops) is what the hot path cannot afford
/// (see Benchmarks/README.md). All loops share the listening socket; the kernel wakes one of them
/// per new connection.
///
/// Everything here belongs to the loop's thread; other threads talk to it through `LoopMailbox`.
final class ServerLoop {
  /// What every loop of a server shares.
  struct Shared: Sendable {
    let dispatcher: EntitlementsDispatcher
    let config: RPCServer.Config
    /// The listening sockets; every loop watches them all.
    let listeners: [ListeningSocket]
    let deferredCalls: DeferredCalls
    let counters: ServerCounters
    let logger: Logger
    /// Refused connections and closed slow clients reach the log a few times a minute.
    let logSampler = LogSampler(perMinute: 10)
  }

  private static let wakeToken = UInt64.max
  /// Listener `i` is watched with token `listenerToken - i` (connection tokens stay far below).
  private static let listenerToken = UInt64.max - 1
  /// How often connections are checked against the idle and read timeouts.
  private static let sweepIntervalNs: UInt64 = 1_000_000_000
  /// The most bytes taken from a socket per readable event.
  static let readSize = 65_536
  /// New connections accepted per wake-up before other connections get their turn.
  static let acceptBurst = 64

  let shared: Shared
  let mailbox: LoopMailbox
  let epoll: Int32
  let allocator = ByteBufferAllocator()
  /// Connections by descriptor.
  var connections: [ServerConnection?] = []
  var connectionCount = 0
  var nextGeneration: UInt32 = 0
  /// Scratch buffers, reused for every read: received bytes and the answers to them. Taken into
  /// locals while in use (a class's stored property costs an exclusivity check per access).
  var input: ByteBuffer?
  var output: ByteBuffer?
  /// A round's plaintext reads, back to back, and where each connection's bytes are in it
  /// (`readRound`); kept between rounds for their capacity.
  var roundInput: ByteBuffer?
  var roundReads: [RoundRead] = []
  /// The connections that became readable together in one wake-up.
  private var readable: [ServerConnection] = []
  /// Connections that may not have proven themselves yet (`ServerConnection.isUnproven`), oldest
  /// first from `unprovenHead`: who makes room when slots run short (`evictOldestUnproven`).
  var unproven: [ConnectionToken] = []
  var unprovenHead = 0
  /// After running out of descriptors, accepting resumes at this moment (monotonic ns).
  var acceptPausedUntilNs: UInt64?
  var shutdownDeadlineNs: UInt64?
  /// The clock at the latest wake-up (monotonic ns): when connections were last active, and when
  /// the calls read in this wake-up started (their latency).
  var nowNs: UInt64 = tg_net_now_ns()
  /// The calls this loop answered, and the connections it refused or cut by reason: this loop's
  /// own, written only on its thread, summed by a scrape through the mailbox (`RPCServer.metrics`).
  let calls = CallCounters()
  var refusedConnections: [String: UInt64] = [:]
  /// IsSubscriber calls the hot path answered in this wake-up, recorded together at its end.
  var hotCalls = 0
  private var nextSweepNs: UInt64 = 0

  /// Watching the listener: not paused and not shutting down.
  var isAccepting: Bool { acceptPausedUntilNs == nil && shutdownDeadlineNs == nil }

  /// A loop on `epoll` (from `makeEpoll`), which it owns and closes when it ends. Create it on the
  /// thread that runs it.
  init(shared: Shared, mailbox: LoopMailbox, epoll: Int32) {
    self.shared = shared
    self.mailbox = mailbox
    self.epoll = epoll
    input = allocator.buffer(capacity: Self.readSize)
    output = allocator.buffer(capacity: 4_096)
    roundInput = allocator.buffer(capacity: Self.readSize)
  }

  /// The epoll set of a new loop, watching the listener and the loop's mailbox.
  static func makeEpoll(shared: Shared, mailbox: LoopMailbox) throws(RPCServerError) -> Int32 {
    let epoll = tg_net_epoll_create()
    guard epoll >= 0 else { throw .eventLoopSetupFailed(errno: errno) }
    guard tg_net_epoll_watch(epoll, mailbox.wakeFd, tg_net_readable, wakeToken, 0) == 0,
      watchListeners(epoll: epoll, shared: shared)
    else {
      let failure = errno
      Glibc.close(epoll)
      throw .eventLoopSetupFailed(errno: failure)
    }
    return epoll
  }

  /// Adds the shared listeners to `epoll`; only one loop is woken per new connection.
  static func watchListeners(epoll: Int32, shared: Shared) -> Bool {
    shared.listeners.indices.allSatisfy { number in
      tg_net_epoll_watch(
        epoll, shared.listeners[number].fd, tg_net_readable | tg_net_exclusive, listenerToken - UInt64(number), 0) == 0
    }
  }

  func unwatchListeners() {
    for listener in shared.listeners { _ = tg_net_epoll_unwatch(epoll, listener.fd) }
  }

  /// Serves until shutdown has closed every connection.
  func run() {
    var events = [tg_net_event](repeating: tg_net_event(), count: 128)
    while true {
      let now = tg_net_now_ns()
      if hotCalls > 0 { recordHotCalls(until: now) }
      if let deadline = shutdownDeadlineNs {
        closeIdleConnections(all: now >= deadline)
        if connectionCount == 0 { break }
      }
      if let until = acceptPausedUntilNs, now >= until { resumeAccepting() }
      if now >= nextSweepNs {
        closeExpiredConnections(now: now)
        nextSweepNs = now + Self.sweepIntervalNs
      }
      let count = events.withUnsafeMutableBufferPointer {
        tg_net_epoll_wait(epoll, $0.baseAddress!, Int32($0.count), timeoutMs(now: now))
      }
      nowNs = tg_net_now_ns()
      guard count >= 0 else {
        shared.logger.critical("the server's event loop failed", metadata: ["error": "\(errno)"])
        closeIdleConnections(all: true)
        break
      }
      // Plaintext connections with bytes to read wait for the end of the wake-up and are read
      // together (`readRound`); everything else is handled as it comes.
      var readable: [ServerConnection] = []
      var listenersReady: UInt64 = 0
      swap(&readable, &self.readable)
      for event in events[0..<Int(count)] {
        switch event.token {
        case Self.wakeToken: handleMailbox()
        case (Self.listenerToken - UInt64(shared.listeners.count) + 1)...Self.listenerToken:
          listenersReady |= 1 << (Self.listenerToken - event.token)
        default:
          if let connection = plaintextReadable(event) {
            readable.append(connection)
          } else {
            handle(event)
          }
        }
      }
      if !readable.isEmpty { readRound(readable) }
      // New connections after this wake-up's reads: near the cap a new connection takes the slot
      // of an unproven one, and a caller whose Authenticate has arrived proves itself first.
      while listenersReady != 0 {
        let number = listenersReady.trailingZeroBitCount
        listenersReady &= listenersReady - 1
        acceptConnections(from: shared.listeners[number])
      }
      readable.removeAll(keepingCapacity: true)
      swap(&readable, &self.readable)
    }
    Glibc.close(epoll)
    for case .snapshot(let reply) in mailbox.close() { reply(nil) }
  }

  /// Records the IsSubscriber calls the hot path answered in the wake-up that just ended, each
  /// as having taken the wake-up's time: from reading them (`nowNs`) to `now`, the clock the
  /// loop reads anyway before waiting again (their answers were sent by then). So the hot path
  /// pays no clock read and no histogram update per read: one per wake-up.
  private func recordHotCalls(until now: UInt64) {
    calls.record(
      method: Int(EntitlementsMethod.isSubscriber.rawValue), outcome: .ok, count: hotCalls,
      nanoseconds: now &- min(nowNs, now))
    hotCalls = 0
  }

  /// What this loop counted, for a scrape.
  private var snapshot: DoorSnapshot {
    DoorSnapshot(calls: calls.snapshot(), refusedConnections: refusedConnections)
  }

  /// Counts a connection refused or closed by a limit, by reason (`over_capacity`, …).
  func countRefused(_ reason: String) {
    refusedConnections[reason, default: 0] += 1
  }

  /// Until the next timed thing: accepting again, the shutdown deadline (or a re-check while
  /// draining); forever otherwise.
  private func timeoutMs(now: UInt64) -> Int32 {
    var next = UInt64.max
    if let until = acceptPausedUntilNs { next = min(next, until) }
    if let deadline = shutdownDeadlineNs { next = min(next, deadline) }
    if connectionCount > 0 { next = min(next, nextSweepNs) }
    guard next != .max else { return -1 }
    return next <= now ? 0 : Int32(min((next - now) / 1_000_000 + 1, 1_000))
  }

  func connection(for token: ConnectionToken) -> ServerConnection? {
    guard token.fd >= 0, Int(token.fd) < connections.count, let connection = connections[Int(token.fd)],
      connection.token == token
    else { return nil }
    return connection
  }

  // MARK: Events

  /// The connection of `event` when all it needs is a plaintext read: readable (or hung up, which
  /// a read tells), being read, not TLS, not also writable.
  private func plaintextReadable(_ event: tg_net_event) -> ServerConnection? {
    guard event.events & tg_net_writable == 0, event.events & (tg_net_readable | tg_net_hangup) != 0,
      let connection = connection(for: ConnectionToken(epollToken: event.token)), connection.reading,
      connection.tls == nil
    else { return nil }
    return connection
  }

  private func handle(_ event: tg_net_event) {
    guard let connection = connection(for: ConnectionToken(epollToken: event.token)) else { return }
    if event.events & tg_net_writable != 0 {
      flush(connection)
      guard self.connection(for: connection.token) != nil else { return }
      if connection.tlsReadWantsWrite {
        connection.tlsReadWantsWrite = false
        updateInterest(connection)
        if connection.reading { read(connection) }
        return
      }
    }
    if connection.reading, event.events & (tg_net_readable | tg_net_hangup) != 0 {
      read(connection)
    } else if event.events & tg_net_closed != 0, event.events & tg_net_writable == 0 {
      // Hung up or failed while not being read (paused, or shutting down): nobody is left to
      // answer. (A readable event from before a pause is left for later.)
      close(connection)
    }
  }

  private func handleMailbox() {
    var output = self.output.take()!
    defer { self.output = output }
    for message in mailbox.takeAll() {
      switch message {
      case .snapshot(let reply):
        reply(snapshot)
      case .answer(let token, let methodIndex, let requestId, let startNs, let result):
        calls.record(
          method: CallCounters.slot(methodIndex: methodIndex), outcome: (try? result.get())?.outcome ?? .failed,
          nanoseconds: nowNs &- min(startNs, nowNs))
        guard let connection = connection(for: token) else { continue }  // closed meanwhile
        connection.pending -= 1
        connection.lastActiveNs = nowNs
        output.clear()
        switch result {
        case .success(let answer):
          output.writeResponseFrame(status: .success, methodIndex: methodIndex, requestId: requestId) {
            $0.writeImmutableBuffer(answer.payload)
          }
        case .failure(let error):
          shared.logger.warning(
            "deferred call failed", metadata: ["rpc.method_index": "\(methodIndex)", "error": "\(error)"])
          output.writeResponseHeader(
            status: .serviceFailed, methodIndex: methodIndex, requestId: requestId, messageLength: 0)
        }
        send(&output, to: connection)
      case .shutdown(let deadlineNs):
        if isAccepting { unwatchListeners() }
        acceptPausedUntilNs = nil
        shutdownDeadlineNs = min(shutdownDeadlineNs ?? .max, deadlineNs)
        for case let connection? in connections {
          connection.reading = false
          updateInterest(connection)
        }
      }
    }
  }
}
