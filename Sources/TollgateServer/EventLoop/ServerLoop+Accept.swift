import CTollgateCrypto
import CTollgateNet
import Glibc
import Logging
import NIOCore
import TollgateCore
import TollgateWire

extension ServerLoop {
  // MARK: Connections

  func acceptConnections(from listener: ListeningSocket) {
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
      // Few slots left: the oldest connection that has not proven itself makes room for this one.
      guard shared.counters.openConnection(limit: makeRoom()) else {
        // Over the cap: the client sees the connection closed at once, rather than waiting in
        // the backlog for a slot that may never come.
        Glibc.close(fd)
        countRefused("over_capacity")
        sampledWarning(
          "connection refused: the server has its maximum of connections open",
          metadata: ["rpc.max_connections": "\(shared.config.maximumConnections)"])
        continue
      }
      register(fd, tls: listener.tls)
    }
  }

  /// A warning that reaches the log at most a few times a minute (a flood cannot flood the log).
  func sampledWarning(_ message: Logger.Message, metadata: Logger.Metadata = [:]) {
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
      caller: ConnectionCaller(access: shared.dispatcher.access, socket: fd), tls: tls, nowNs: nowNs)
    connectionCount += 1
    unproven.append(token)
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

  /// Stops watching the listeners for 100 ms (out of descriptors or memory).
  private func pauseAccepting() {
    guard isAccepting else { return }
    unwatchListeners()
    acceptPausedUntilNs = tg_net_now_ns() + 100_000_000
  }

  func resumeAccepting() {
    acceptPausedUntilNs = nil
    guard shutdownDeadlineNs == nil else { return }
    if !Self.watchListeners(epoll: epoll, shared: shared) {
      unwatchListeners()
      acceptPausedUntilNs = tg_net_now_ns() + 100_000_000
    }
  }

  func closeIdleConnections(all: Bool) {
    for case let connection? in connections where all || connection.isIdle {
      close(connection)
    }
  }
}
