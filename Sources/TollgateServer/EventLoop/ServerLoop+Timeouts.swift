import CTollgateCrypto
import CTollgateNet
import Glibc
import Logging
import NIOCore
import TollgateCore
import TollgateWire

extension ServerLoop {
  // MARK: Timeouts and buffer limits

  /// The timeouts of a sweep, in ns.
  struct Deadlines {
    let read: UInt64
    let idle: UInt64
    let write: UInt64
    let handshake: UInt64
    let unauthenticated: UInt64

    init(_ config: RPCServer.Config) {
      func ns(_ duration: Duration) -> UInt64 { UInt64(max(0, duration.nanoseconds)) }
      read = ns(config.readTimeout)
      idle = ns(config.idleTimeout)
      write = ns(config.writeTimeout)
      handshake = ns(config.handshakeTimeout)
      unauthenticated = ns(config.unauthenticatedTimeout)
    }
  }

  /// Closes connections past a deadline for progress (once a second): a frame begun and not
  /// finished within the read timeout (a client sending a frame a byte at a time); answers the
  /// socket took none of for the write timeout (a client that sends and never reads); a TLS
  /// handshake not finished within the handshake timeout; no authenticated caller (callers
  /// configured) for the unauthenticated timeout; nothing received, pending or unwritten for the
  /// idle timeout.
  func closeExpiredConnections(now: UInt64) {
    let deadlines = Deadlines(shared.config)
    for case let connection? in connections {
      // A frame waits on the client only while the server reads it: time spent not reading
      // (backpressure, shutdown) does not count.
      if !connection.reading, connection.partialSinceNs != nil { connection.partialSinceNs = now }
      switch expiry(of: connection, now: now, deadlines: deadlines) {
      case nil: continue
      case .idle: close(connection)
      case .stalled(let reason, let key, let timeoutNs):
        sampledWarning(reason, metadata: [key: "\(timeoutNs / 1_000_000)"])
        // rpc.read_timeout_ms → read_timeout
        countRefused(String(key.dropFirst("rpc.".count).dropLast("_ms".count)))
        close(connection)
      }
    }
    shedOverCap()
    pruneUnproven()
    shared.counters.releaseFreeMemoryIfShrunk()
  }

  /// Why a connection is closed by the sweep.
  enum Expiry {
    /// Nothing received, pending or unwritten for the idle timeout (not logged).
    case idle
    /// A deadline for progress passed.
    case stalled(Logger.Message, timeoutKey: String, timeoutNs: UInt64)
  }

  /// Which deadline `connection` is past, if any.
  private func expiry(of connection: ServerConnection, now: UInt64, deadlines: Deadlines) -> Expiry? {
    if let since = connection.partialSinceNs, now &- since > deadlines.read {
      return .stalled(
        "connection closed: a request frame was not completed within the read timeout",
        timeoutKey: "rpc.read_timeout_ms", timeoutNs: deadlines.read)
    }
    if let since = connection.writeStalledSinceNs, now &- since > deadlines.write {
      return .stalled(
        "connection closed: its answers were not read within the write timeout", timeoutKey: "rpc.write_timeout_ms",
        timeoutNs: deadlines.write)
    }
    if !connection.handshakeDone, let tls = connection.tls {
      if tg_tls_handshake_done(tls) != 0 {
        connection.handshakeDone = true
      } else if now &- connection.openedNs > deadlines.handshake {
        return .stalled(
          "connection closed: the TLS handshake did not finish within the handshake timeout",
          timeoutKey: "rpc.handshake_timeout_ms", timeoutNs: deadlines.handshake)
      }
    }
    if connection.caller.identity != nil {
      connection.unauthenticatedSinceNs = nil
    } else {
      let since = connection.unauthenticatedSinceNs ?? now
      connection.unauthenticatedSinceNs = since
      if now &- since > deadlines.unauthenticated {
        return .stalled(
          "connection closed: no caller authenticated within the unauthenticated timeout",
          timeoutKey: "rpc.unauthenticated_timeout_ms", timeoutNs: deadlines.unauthenticated)
      }
    }
    if connection.isIdle, connection.partial == nil, now &- connection.lastActiveNs > deadlines.idle {
      return .idle
    }
    return nil
  }

  /// Accounts for the partial frame `connection` now holds against the server-wide bound; false
  /// (and the partial frame released) when it would go over.
  func chargePartial(of connection: ServerConnection) -> Bool {
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

  func releasePartial(of connection: ServerConnection) {
    connection.partial = nil
    connection.partialSinceNs = nil
    if connection.partialCharge != 0 {
      _ = shared.counters.chargeBuffered(-connection.partialCharge, limit: .max)
      connection.partialCharge = 0
    }
  }
}
