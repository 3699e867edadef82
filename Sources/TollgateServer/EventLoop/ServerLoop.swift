import CTollgateCrypto
import CTollgateNet
import Glibc
import Logging
import NIOCore
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
  private static let acceptBurst = 64

  let shared: Shared
  private let mailbox: LoopMailbox
  private let epoll: Int32
  private let allocator = ByteBufferAllocator()
  /// Connections by descriptor.
  private var connections: [ServerConnection?] = []
  private var connectionCount = 0
  private var nextGeneration: UInt32 = 0
  /// Scratch buffers, reused for every read: received bytes and the answers to them. Taken into
  /// locals while in use (a class's stored property costs an exclusivity check per access).
  private var input: ByteBuffer?
  private var output: ByteBuffer?
  /// A round's plaintext reads, back to back, and where each connection's bytes are in it
  /// (`readRound`); kept between rounds for their capacity.
  var roundInput: ByteBuffer?
  var roundReads: [RoundRead] = []
  /// The connections that became readable together in one wake-up.
  private var readable: [ServerConnection] = []
  /// After running out of descriptors, accepting resumes at this moment (monotonic ns).
  private var acceptPausedUntilNs: UInt64?
  private var shutdownDeadlineNs: UInt64?
  /// The clock at the latest wake-up (monotonic ns): when connections were last active.
  private var nowNs: UInt64 = tg_net_now_ns()
  private var nextSweepNs: UInt64 = 0

  /// Watching the listener: not paused and not shutting down.
  private var isAccepting: Bool { acceptPausedUntilNs == nil && shutdownDeadlineNs == nil }

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
  private static func watchListeners(epoll: Int32, shared: Shared) -> Bool {
    shared.listeners.indices.allSatisfy { number in
      tg_net_epoll_watch(
        epoll, shared.listeners[number].fd, tg_net_readable | tg_net_exclusive, listenerToken - UInt64(number), 0) == 0
    }
  }

  private func unwatchListeners() {
    for listener in shared.listeners { _ = tg_net_epoll_unwatch(epoll, listener.fd) }
  }

  /// Serves until shutdown has closed every connection.
  func run() {
    var events = [tg_net_event](repeating: tg_net_event(), count: 128)
    while true {
      let now = tg_net_now_ns()
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
      swap(&readable, &self.readable)
      for event in events[0..<Int(count)] {
        switch event.token {
        case Self.wakeToken: handleMailbox()
        case (Self.listenerToken - UInt64(shared.listeners.count) + 1)...Self.listenerToken:
          acceptConnections(from: shared.listeners[Int(Self.listenerToken - event.token)])
        default:
          if let connection = plaintextReadable(event) {
            readable.append(connection)
          } else {
            handle(event)
          }
        }
      }
      if !readable.isEmpty { readRound(readable) }
      readable.removeAll(keepingCapacity: true)
      swap(&readable, &self.readable)
    }
    Glibc.close(epoll)
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

  // MARK: Connections

  private func acceptConnections(from listener: ListeningSocket) {
    for _ in 0..<Self.acceptBurst where isAccepting {
      let fd = tg_net_accept(listener.fd)
      guard fd >= 0 else {
        switch errno {
        case EAGAIN, EWOULDBLOCK: return
        case ECONNABORTED, EPROTO: continue
        case EMFILE, ENFILE, ENOBUFS, ENOMEM:
          // The connection stays queued: stop watching the listener for a moment instead of
          // waking for it again and again.
          shared.logger.warning("cannot accept a connection; retrying in 100 ms", metadata: ["error": "\(errno)"])
          pauseAccepting()
          return
        default:
          shared.logger.error("accepting connections failed", metadata: ["error": "\(errno)"])
          return
        }
      }
      guard shared.counters.openConnection(limit: shared.config.maximumConnections) else {
        // Over the cap: the client sees the connection closed at once, rather than waiting in
        // the backlog for a slot that may never come.
        Glibc.close(fd)
        sampledWarning(
          "connection refused: the server has its maximum of connections open",
          metadata: ["rpc.max_connections": "\(shared.config.maximumConnections)"])
        continue
      }
      register(fd, tls: listener.tls)
    }
  }

  /// A warning that reaches the log at most a few times a minute (a flood cannot flood the log).
  private func sampledWarning(_ message: Logger.Message, metadata: Logger.Metadata = [:]) {
    let (log, skipped) = shared.logSampler.admit("\(message)", nowMs: Int64(nowNs / 1_000_000))
    guard log else { return }
    var metadata = metadata
    if skipped > 0 { metadata["log.skipped"] = "\(skipped)" }
    shared.logger.warning(message, metadata: metadata)
  }

  private func register(_ fd: Int32, tls context: TLSServerContext?) {
    var tls: OpaquePointer?
    if let context {
      tls = context.connection(fd: fd)
      guard tls != nil else {
        shared.logger.error("cannot start TLS on a new connection")
        Glibc.close(fd)
        shared.counters.closeConnection()
        return
      }
    }
    nextGeneration &+= 1
    let token = ConnectionToken(fd: fd, generation: nextGeneration)
    guard tg_net_epoll_watch(epoll, fd, tg_net_readable, token.epollToken, 0) == 0 else {
      shared.logger.error("cannot watch a new connection", metadata: ["error": "\(errno)"])
      if let tls { tg_tls_free(tls) }
      Glibc.close(fd)
      shared.counters.closeConnection()
      return
    }
    if Int(fd) >= connections.count {
      connections.append(contentsOf: repeatElement(nil, count: Int(fd) + 1 - connections.count))
    }
    connections[Int(fd)] = ServerConnection(
      token: token, maximumPayloadLength: shared.config.maximumPayloadLength,
      caller: ConnectionCaller(access: shared.dispatcher.access), tls: tls, nowNs: nowNs)
    connectionCount += 1
  }

  func connection(for token: ConnectionToken) -> ServerConnection? {
    guard token.fd >= 0, Int(token.fd) < connections.count, let connection = connections[Int(token.fd)],
      connection.token == token
    else { return nil }
    return connection
  }

  func close(_ connection: ServerConnection) {
    _ = tg_net_epoll_unwatch(epoll, connection.fd)
    if let tls = connection.tls { tg_tls_free(tls) }
    Glibc.close(connection.fd)
    connections[Int(connection.fd)] = nil
    connectionCount -= 1
    shared.counters.closeConnection()
    releasePartial(of: connection)
  }

  // MARK: Timeouts and buffer limits

  /// Closes connections past a timeout: a frame begun and not finished within the read timeout
  /// (a client sending a frame a byte at a time), or nothing received, pending or unwritten for
  /// the idle timeout.
  private func closeExpiredConnections(now: UInt64) {
    let readTimeoutNs = UInt64(max(0, shared.config.readTimeout.nanoseconds))
    let idleTimeoutNs = UInt64(max(0, shared.config.idleTimeout.nanoseconds))
    for case let connection? in connections {
      // A frame waits on the client only while the server reads it: time spent not reading
      // (backpressure, shutdown) does not count.
      if !connection.reading, connection.partialSinceNs != nil { connection.partialSinceNs = now }
      if let since = connection.partialSinceNs, now &- since > readTimeoutNs {
        sampledWarning(
          "connection closed: a request frame was not completed within the read timeout",
          metadata: ["rpc.read_timeout_ms": "\(readTimeoutNs / 1_000_000)"])
        close(connection)
      } else if connection.isIdle, connection.partial == nil, now &- connection.lastActiveNs > idleTimeoutNs {
        close(connection)
      }
    }
    shared.counters.releaseFreeMemoryIfShrunk()
  }

  /// Accounts for the partial frame `connection` now holds against the server-wide bound; false
  /// (and the partial frame released) when it would go over.
  private func chargePartial(of connection: ServerConnection) -> Bool {
    let capacity = connection.partial?.capacity ?? 0
    let change = capacity - connection.partialCharge
    guard change != 0 else { return true }
    guard shared.counters.chargeBuffered(change, limit: shared.config.maximumBufferedBytes) else {
      return false
    }
    connection.partialCharge = capacity
    if connection.partial == nil {
      connection.partialSinceNs = nil
    } else if connection.partialSinceNs == nil {
      connection.partialSinceNs = nowNs
    }
    return true
  }

  private func releasePartial(of connection: ServerConnection) {
    connection.partial = nil
    connection.partialSinceNs = nil
    if connection.partialCharge != 0 {
      _ = shared.counters.chargeBuffered(-connection.partialCharge, limit: .max)
      connection.partialCharge = 0
    }
  }

  /// Stops watching the listeners for 100 ms (out of descriptors or memory).
  private func pauseAccepting() {
    guard isAccepting else { return }
    unwatchListeners()
    acceptPausedUntilNs = tg_net_now_ns() + 100_000_000
  }

  private func resumeAccepting() {
    acceptPausedUntilNs = nil
    guard shutdownDeadlineNs == nil else { return }
    if !Self.watchListeners(epoll: epoll, shared: shared) {
      unwatchListeners()
      acceptPausedUntilNs = tg_net_now_ns() + 100_000_000
    }
  }

  /// Watches `connection` for what it needs now: readable unless paused, writable while answers
  /// wait for the socket.
  private func updateInterest(_ connection: ServerConnection) {
    let wanted =
      (connection.reading ? tg_net_readable : 0)
      | (connection.unsent != nil || connection.tlsReadWantsWrite ? tg_net_writable : 0)
    guard wanted != connection.watched else { return }
    connection.watched = wanted
    _ = tg_net_epoll_watch(epoll, connection.fd, wanted, connection.token.epollToken, 1)
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

  private func read(_ connection: ServerConnection) {
    var input = self.input.take()!
    defer { self.input = input }
    input.clear()
    if let tls = connection.tls {
      guard readTLS(tls, into: &input, from: connection) else { return }
    } else {
      let count = input.withUnsafeMutableWritableBytes { Glibc.read(connection.fd, $0.baseAddress, $0.count) }
      guard count > 0 else {
        if count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
        // End of stream or a reset: a partial frame is dropped, its sender is gone.
        close(connection)
        return
      }
      input.moveWriterIndex(forwardBy: count)
    }
    process(&input, from: connection)
  }

  /// Answers what `connection` sent (`input`, after any partial frame it left before), keeps
  /// what is left of an incomplete frame, and sends the answers.
  func process(_ input: inout ByteBuffer, from connection: ServerConnection) {
    var output = self.output.take()!
    defer { self.output = output }
    connection.lastActiveNs = nowNs
    if case .callers(let registry) = shared.dispatcher.access { connection.caller.refresh(from: registry) }
    output.clear()
    if var partial = connection.partial.take() {
      partial.writeBuffer(&input)
      answer(&partial, into: &output, from: connection)
      if partial.readableBytes > 0 {
        partial.discardReadBytes()
        connection.partial = partial
      }
    } else {
      answer(&input, into: &output, from: connection)
      if input.readableBytes > 0 {
        // Room for the whole frame at once when its header says how long it is (it never grows
        // past the payload limit: longer payloads are discarded as they arrive).
        let frameLength = input.withUnsafeReadableBytes { RequestFrame.Header(in: $0) }.map {
          RequestFrame.headerLength + min(Int($0.messageLength), shared.config.maximumPayloadLength)
        }
        var rest = allocator.buffer(capacity: max(input.readableBytes, frameLength ?? 0, 256))
        rest.writeBuffer(&input)
        connection.partial = rest
      }
    }
    let withinBounds = chargePartial(of: connection)
    send(&output, to: connection)
    guard self.connection(for: connection.token) != nil else { return }
    if !withinBounds {
      sampledWarning(
        "connection closed: partial request frames use the server's whole buffer allowance",
        metadata: ["rpc.max_buffered_bytes": "\(shared.config.maximumBufferedBytes)"])
      close(connection)
    } else if connection.caller.mustClose {
      close(connection)
    }
  }

  /// Reads what TLS has decrypted, until OpenSSL holds nothing more (it may hold records or read-ahead
  /// the socket no longer signals, so a readable event reads them all; the kernel's receive buffer
  /// bounds it). False when there is nothing to answer: nothing decrypted yet (the handshake, a
  /// partial record), or the connection closed.
  private func readTLS(_ tls: OpaquePointer, into input: inout ByteBuffer, from connection: ServerConnection) -> Bool {
    while true {
      if input.writableBytes == 0 { input.reserveCapacity(minimumWritableBytes: Self.readSize) }
      let count = input.withUnsafeMutableWritableBytes { tg_tls_read(tls, $0.baseAddress, $0.count) }
      if count > 0 {
        input.moveWriterIndex(forwardBy: count)
        // Nothing left inside OpenSSL: the socket's readiness tells of anything more (epoll is
        // level-triggered), so no read(2) just to hear EAGAIN.
        if tg_tls_has_pending(tls) == 0 { return true }
        continue
      }
      switch count {
      case TG_TLS_WANT_READ:
        break
      case TG_TLS_WANT_WRITE:
        connection.tlsReadWantsWrite = true
        updateInterest(connection)
      default:
        // The peer closed, or TLS failed (a bad handshake, a plaintext client): nothing to answer.
        close(connection)
        return false
      }
      return input.readableBytes > 0
    }
  }

  /// Answers every complete frame in `bytes` into `output`; deferred calls start here and answer
  /// through the mailbox.
  private func answer(_ bytes: inout ByteBuffer, into output: inout ByteBuffer, from connection: ServerConnection) {
    var decoder = connection.decoder
    let maximumPayloadLength = shared.config.maximumPayloadLength
    while true {
      // The hot path first: runs of IsSubscriber frames answered together from the read's bytes.
      // Whatever it leaves goes through the decoder, one frame at a time.
      while !decoder.isDiscarding, connection.caller.mayRead {
        let answered = bytes.withUnsafeReadableBytes {
          shared.dispatcher.answerIsSubscriberCalls(in: $0, maximumPayloadLength: maximumPayloadLength, into: &output)
        }
        guard answered > 0 else { break }
        bytes.moveReaderIndex(forwardBy: answered)
      }
      guard let request = decoder.decodeFrame(buffer: &bytes) else { break }
      switch request {
      case .oversized(let methodIndex, let requestId, let length):
        shared.logger.debug(
          "request payload over the limit",
          metadata: ["rpc.method_index": "\(methodIndex)", "rpc.message_length": "\(length)"])
        output.writeResponseHeader(
          status: .serviceFailed, methodIndex: methodIndex, requestId: requestId, messageLength: 0)
      case .request(let frame):
        let outcome = shared.dispatcher.dispatch(
          methodIndex: frame.methodIndex, requestId: frame.requestId, payload: frame.payload,
          caller: &connection.caller, into: &output)
        if case .deferred(let work) = outcome {
          start(
            work, methodIndex: frame.methodIndex, requestId: frame.requestId, for: connection, refusingInto: &output)
        }
      }
      // Too many failed Authenticate calls: nothing after them is answered.
      if connection.caller.mustClose { break }
    }
    connection.decoder = decoder
  }

  private func start(
    _ work: @escaping @Sendable () async throws -> ByteBuffer, methodIndex: UInt32, requestId: UInt32,
    for connection: ServerConnection, refusingInto output: inout ByteBuffer
  ) {
    guard connection.pending < shared.config.maximumPendingPerConnection else {
      output.writeResponseHeader(
        status: .tooManyPending, methodIndex: methodIndex, requestId: requestId, messageLength: 0)
      return
    }
    let call = DeferredCall(
      work: work, mailbox: mailbox, token: connection.token, methodIndex: methodIndex, requestId: requestId)
    guard shared.deferredCalls.submit(call) else {
      output.writeResponseHeader(
        status: .serviceFailed, methodIndex: methodIndex, requestId: requestId, messageLength: 0)
      return
    }
    connection.pending += 1
  }

  private func handleMailbox() {
    var output = self.output.take()!
    defer { self.output = output }
    for message in mailbox.takeAll() {
      switch message {
      case .answer(let token, let methodIndex, let requestId, let result):
        guard let connection = connection(for: token) else { continue }  // closed meanwhile
        connection.pending -= 1
        connection.lastActiveNs = nowNs
        output.clear()
        switch result {
        case .success(let payload):
          output.writeResponseFrame(status: .success, methodIndex: methodIndex, requestId: requestId) {
            $0.writeImmutableBuffer(payload)
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

  private func closeIdleConnections(all: Bool) {
    for case let connection? in connections where all || connection.isIdle {
      close(connection)
    }
  }

  // MARK: Writing

  /// Writes `bytes` to the connection now, keeping what the socket does not take; stops reading
  /// from a peer that lets answers pile up past the high watermark.
  private func send(_ bytes: inout ByteBuffer, to connection: ServerConnection) {
    guard bytes.readableBytes > 0 else { return }
    if connection.unsent != nil {
      connection.unsent!.writeBuffer(&bytes)
      return flush(connection)
    }
    guard write(&bytes, to: connection), bytes.readableBytes > 0 else { return }
    var unsent = allocator.buffer(capacity: bytes.readableBytes)
    unsent.writeBuffer(&bytes)
    connection.unsent = unsent
    applyBackpressure(connection)
  }

  /// Writes what waits for the socket.
  private func flush(_ connection: ServerConnection) {
    guard var unsent = connection.unsent.take() else { return updateInterest(connection) }
    guard write(&unsent, to: connection) else { return }
    if unsent.readableBytes > 0 {
      unsent.discardReadBytes()
      connection.unsent = unsent
    }
    applyBackpressure(connection)
  }

  /// Sends as much of `bytes` as the socket takes, consuming it; false when the connection failed
  /// and is closed.
  private func write(_ bytes: inout ByteBuffer, to connection: ServerConnection) -> Bool {
    if let tls = connection.tls { return writeTLS(tls, &bytes, to: connection) }
    let written = bytes.withUnsafeReadableBytes { tg_net_send(connection.fd, $0.baseAddress, $0.count) }
    guard written >= 0 || errno == EAGAIN || errno == EWOULDBLOCK else {
      close(connection)
      return false
    }
    bytes.moveReaderIndex(forwardBy: max(written, 0))
    return true
  }

  private func writeTLS(_ tls: OpaquePointer, _ bytes: inout ByteBuffer, to connection: ServerConnection) -> Bool {
    while bytes.readableBytes > 0 {
      let written = bytes.withUnsafeReadableBytes { tg_tls_write(tls, $0.baseAddress, $0.count) }
      guard written > 0 else {
        if written == TG_TLS_WANT_WRITE || written == TG_TLS_WANT_READ { return true }
        close(connection)
        return false
      }
      bytes.moveReaderIndex(forwardBy: written)
    }
    return true
  }

  private func applyBackpressure(_ connection: ServerConnection) {
    let waiting = connection.unsent?.readableBytes ?? 0
    if waiting > shared.config.writeBufferHighWatermark {
      connection.reading = false
    } else if waiting <= shared.config.writeBufferHighWatermark / 2, shutdownDeadlineNs == nil {
      connection.reading = true
    }
    updateInterest(connection)
  }
}
