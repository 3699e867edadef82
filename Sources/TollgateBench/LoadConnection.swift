import CTollgateCrypto
import CTollgateNet
import TollgateWire

#if canImport(Glibc)
  import Glibc
#endif

/// One connection of the load generator: a non-blocking socket (TCP or Unix, in plaintext or
/// TLS), what is waiting to be sent, the bytes received but not yet parsed, and the requests
/// waiting for their answers. Used by one thread only.
final class LoadConnection {
  let fd: Int32
  let token: UInt64
  /// The connection's `tg_tls` (OpenSSL) with TLS, nil in plaintext; freed on close.
  let tls: OpaquePointer?
  var inFlight: InFlightTable
  var pacer: OpenLoopPacer?
  /// Requests this connection may still send (request-count runs); nil for timed runs.
  var budget: Int?
  var nextRequestId: UInt32 = 1
  var isOpen = true
  private(set) var watchingWritable = false

  private var sendBuffer: [UInt8] = []
  private var sendOffset = 0
  private var receiveBuffer: [UInt8]
  private var receiveCount = 0

  init(fd: Int32, token: UInt64, pipeline: Int, tls: OpaquePointer? = nil) {
    self.fd = fd
    self.token = token
    self.tls = tls
    inFlight = InFlightTable(capacity: pipeline)
    sendBuffer.reserveCapacity(64 * 1024)
    receiveBuffer = [UInt8](repeating: 0, count: 256 * 1024)
  }

  /// Appends a frame with `write` and records it as outstanding from `startNs`.
  func enqueue(startNs: UInt64, _ write: (inout [UInt8], UInt32) -> Void) {
    // A request that was never answered keeps its slot; skip ids that would land on it.
    while !inFlight.isFree(nextRequestId) { nextRequestId &+= 1 }
    let id = nextRequestId
    nextRequestId &+= 1
    write(&sendBuffer, id)
    let inserted = inFlight.insert(id: id, startNs: startNs)
    precondition(inserted, "more requests in flight than the pipeline allows")
  }

  /// Appends bytes that answer no tracked request (Authenticate, before the load).
  func enqueueUntracked(_ bytes: [UInt8]) { sendBuffer.append(contentsOf: bytes) }

  var hasUnsentBytes: Bool { sendOffset < sendBuffer.count }

  enum IOResult {
    case ok, wouldBlock
    case closed(Int32)
  }

  /// Sends what it can; `.wouldBlock` when the socket's buffer is full (watch for writable).
  func flush() -> IOResult {
    while sendOffset < sendBuffer.count {
      if let tls {
        let sent = sendBuffer.withUnsafeBytes { tg_tls_write(tls, $0.baseAddress! + sendOffset, $0.count - sendOffset) }
        guard sent > 0 else { return sent == TG_TLS_WANT_WRITE || sent == TG_TLS_WANT_READ ? .wouldBlock : .closed(0) }
        sendOffset += sent
        continue
      }
      let sent = sendBuffer.withUnsafeBytes { bytes in
        send(fd, bytes.baseAddress! + sendOffset, bytes.count - sendOffset, Int32(MSG_NOSIGNAL))
      }
      if sent > 0 {
        sendOffset += sent
      } else if sent < 0, errno == EAGAIN || errno == EWOULDBLOCK {
        return .wouldBlock
      } else if sent < 0, errno == EINTR {
        continue
      } else {
        return .closed(errno)
      }
    }
    sendBuffer.removeAll(keepingCapacity: true)
    sendOffset = 0
    return .ok
  }

  func setWatchingWritable(_ on: Bool, epoll: Int32) {
    guard on != watchingWritable else { return }
    watchingWritable = on
    _ = tg_net_epoll_watch(epoll, fd, on ? tg_net_readable | tg_net_writable : tg_net_readable, token, 1)
  }

  /// One answer's header fields and where its payload is.
  struct Answer {
    var status: UInt32
    var methodIndex: UInt32
    var requestId: UInt32
    /// Only valid inside the `receive` callback.
    var payload: UnsafeRawBufferPointer
  }

  /// Reads until the socket is drained and hands every complete answer to `handle`.
  func receive(_ handle: (Answer) -> Void) -> IOResult {
    while true {
      if receiveBuffer.count - receiveCount < 4096 {
        receiveBuffer.append(contentsOf: repeatElement(0, count: receiveBuffer.count))
      }
      if let tls {
        // Until OpenSSL wants the socket again: it may hold records the socket no longer signals.
        let received = receiveBuffer.withUnsafeMutableBytes { bytes in
          tg_tls_read(tls, bytes.baseAddress! + receiveCount, bytes.count - receiveCount)
        }
        guard received > 0 else {
          return received == TG_TLS_WANT_READ || received == TG_TLS_WANT_WRITE ? .wouldBlock : .closed(0)
        }
        receiveCount += received
        parse(handle)
        continue
      }
      let received = receiveBuffer.withUnsafeMutableBytes { bytes in
        read(fd, bytes.baseAddress! + receiveCount, bytes.count - receiveCount)
      }
      if received > 0 {
        receiveCount += received
        parse(handle)
      } else if received == 0 {
        return .closed(0)
      } else if errno == EAGAIN || errno == EWOULDBLOCK {
        return .wouldBlock
      } else if errno != EINTR {
        return .closed(errno)
      }
    }
  }

  private func parse(_ handle: (Answer) -> Void) {
    var offset = 0
    receiveBuffer.withUnsafeBytes { buffer in
      let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<receiveCount])
      while let header = ResponseFrame.Header(in: bytes, at: offset) {
        let start = offset + ResponseFrame.headerLength
        let length = Int(header.messageLength)
        guard bytes.count - start >= length else { break }
        let payload = UnsafeRawBufferPointer(rebasing: bytes[start..<start + length])
        handle(
          Answer(
            status: header.rawStatus, methodIndex: header.methodIndex, requestId: header.requestId, payload: payload))
        offset = start + length
      }
    }
    if offset > 0 {
      let remaining = receiveCount - offset
      if remaining > 0 {
        receiveBuffer.withUnsafeMutableBytes { bytes in
          bytes.baseAddress!.copyMemory(from: bytes.baseAddress! + offset, byteCount: remaining)
        }
      }
      receiveCount = remaining
    }
  }

  func close() {
    guard isOpen else { return }
    isOpen = false
    if let tls { tg_tls_free(tls) }
    _ = Glibc.close(fd)
  }

  deinit { close() }
}
