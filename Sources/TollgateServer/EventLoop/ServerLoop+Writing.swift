import CTollgateCrypto
import CTollgateNet
import Glibc
import Logging
import NIOCore
import TollgateCore
import TollgateWire

extension ServerLoop {
  // MARK: Writing

  /// Writes `bytes` to the connection now, keeping what the socket does not take; stops reading
  /// from a peer that lets answers pile up past the high watermark.
  func send(_ bytes: inout ByteBuffer, to connection: ServerConnection) {
    guard bytes.readableBytes > 0 else { return }
    connection.answered = true
    if connection.unsent != nil {
      connection.unsent!.writeBuffer(&bytes)
      return flush(connection)
    }
    guard write(&bytes, to: connection), bytes.readableBytes > 0 else { return }
    var unsent = allocator.buffer(capacity: bytes.readableBytes)
    unsent.writeBuffer(&bytes)
    connection.unsent = unsent
    connection.writeStalledSinceNs = nowNs
    applyBackpressure(connection)
  }

  /// Writes what waits for the socket.
  func flush(_ connection: ServerConnection) {
    guard var unsent = connection.unsent.take() else { return updateInterest(connection) }
    let waiting = unsent.readableBytes
    guard write(&unsent, to: connection) else { return }
    if unsent.readableBytes > 0 {
      // The socket took some: the write timeout counts from here.
      if unsent.readableBytes < waiting { connection.writeStalledSinceNs = nowNs }
      unsent.discardReadBytes()
      connection.unsent = unsent
    } else {
      connection.writeStalledSinceNs = nil
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

  /// Watches `connection` for what it needs now: readable unless paused, writable while answers
  /// wait for the socket.
  func updateInterest(_ connection: ServerConnection) {
    let wanted =
      (connection.reading ? tg_net_readable : 0)
      | (connection.unsent != nil || connection.tlsReadWantsWrite ? tg_net_writable : 0)
    guard wanted != connection.watched else { return }
    connection.watched = wanted
    _ = tg_net_epoll_watch(epoll, connection.fd, wanted, connection.token.epollToken, 1)
  }
}
