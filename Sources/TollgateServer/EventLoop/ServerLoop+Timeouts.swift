import CTollgateCrypto
import CTollgateNet
import Glibc
import Logging
import NIOCore
import TollgateCore
import TollgateWire

extension ServerLoop {
  // MARK: Timeouts and buffer limits

  /// Closes connections past a timeout: a frame begun and not finished within the read timeout
  /// (a client sending a frame a byte at a time), or nothing received, pending or unwritten for
  /// the idle timeout.
  func closeExpiredConnections(now: UInt64) {
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
