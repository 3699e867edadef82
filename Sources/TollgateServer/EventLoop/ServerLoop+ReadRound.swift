import Glibc
import NIOCore
import TollgateWire

/// Where one connection's bytes are in a round's reads.
struct RoundRead {
  let connection: ServerConnection
  let start: Int
  let count: Int
}

extension ServerLoop {
  /// The most IsSubscriber requests of one round prepared together (one per connection).
  static let roundPrepareLimit = 128

  /// Reads every plaintext connection that became readable in one wake-up, then has the handler
  /// prepare each one's first IsSubscriber request, all at once, then answers each connection in turn. With
  /// many connections and one request each (unpipelined clients), the lookups of the whole round
  /// then wait for memory together, as a pipelined read's do; the answers are the same as
  /// reading and answering one connection at a time.
  func readRound(_ readable: [ServerConnection]) {
    var round = roundInput.take()!
    var reads: [RoundRead] = []
    swap(&reads, &roundReads)
    round.clear()
    for connection in readable where self.connection(for: connection.token) != nil {
      round.reserveCapacity(minimumWritableBytes: Self.readSize)
      let start = round.writerIndex
      let count = round.withUnsafeMutableWritableBytes {
        Glibc.read(connection.fd, $0.baseAddress, min($0.count, Self.readSize))
      }
      guard count > 0 else {
        if count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
        // End of stream or a reset: a partial frame is dropped, its sender is gone.
        close(connection)
        continue
      }
      round.moveWriterIndex(forwardBy: count)
      reads.append(RoundRead(connection: connection, start: start, count: count))
    }
    if reads.count > 1 { prepare(reads, in: round) }
    for read in reads where self.connection(for: read.connection.token) != nil {
      var input = round.getSlice(at: read.start, length: read.count)!
      process(&input, from: read.connection)
    }
    reads.removeAll(keepingCapacity: true)
    swap(&reads, &roundReads)
    roundInput = round
  }

  /// Hands the handler the first IsSubscriber request of each read whose connection may ask it (no
  /// partial frame before it, a caller allowed to read). Only the first: a read of several is
  /// answered as one batch, which overlaps its own lookups; preparing those too only costs.
  private func prepare(_ reads: [RoundRead], in round: ByteBuffer) {
    let maximumPayloadLength = shared.config.maximumPayloadLength
    round.withUnsafeReadableBytes { bytes in
      withUnsafeTemporaryAllocation(of: IsSubscriberFields.self, capacity: Self.roundPrepareLimit) { requests in
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: Self.roundPrepareLimit) { requestIds in
          withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: Self.roundPrepareLimit) { payloads in
            var count = 0
            for read in reads where count < requests.count {
              guard read.connection.partial == nil, !read.connection.decoder.isDiscarding,
                read.connection.caller.mayRead
              else { continue }
              let (found, _) = EntitlementsDispatcher.scanIsSubscriberRun(
                in: UnsafeRawBufferPointer(rebasing: bytes[read.start..<read.start + read.count]),
                maximumPayloadLength: maximumPayloadLength,
                requests: UnsafeMutableBufferPointer(rebasing: requests[count...count]),
                requestIds: UnsafeMutableBufferPointer(rebasing: requestIds[count...count]),
                payloads: UnsafeMutableBufferPointer(rebasing: payloads[count...count]))
              count += found
            }
            if count > 1 {
              shared.dispatcher.handler.prepareIsSubscriber(UnsafeBufferPointer(rebasing: requests[..<count]))
            }
          }
        }
      }
    }
  }
}
