import CTollgateCrypto
import CTollgateNet
import Glibc
import Logging
import NIOCore
import TollgateContract
import TollgateCore
import TollgateWire

extension ServerLoop {
  // MARK: Reading

  func read(_ connection: ServerConnection) {
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
    // IsSubscriber calls the hot path answered: recorded together at the end of the wake-up.
    var answered = 0
    if var partial = connection.partial.take() {
      partial.writeBuffer(&input)
      answer(&partial, into: &output, from: connection, answered: &answered)
      if partial.readableBytes > 0 {
        partial.discardReadBytes()
        connection.partial = partial
      }
    } else {
      answer(&input, into: &output, from: connection, answered: &answered)
      if input.readableBytes > 0 {
        // Room for what arrived, not for what the header announces: the buffer grows as the rest
        // arrives (never past the payload limit: longer payloads are discarded as they arrive)
        // and is charged as it grows, so a frame's first bytes cost the server-wide bound only
        // themselves.
        var rest = allocator.buffer(capacity: max(input.readableBytes, 256))
        rest.writeBuffer(&input)
        connection.partial = rest
      }
    }
    let withinBounds = chargePartial(of: connection)
    send(&output, to: connection)
    // Recorded when the wake-up's work is done (`recordHotCalls`): no clock read here.
    hotCalls &+= answered
    guard self.connection(for: connection.token) != nil else { return }
    if !withinBounds {
      countRefused("buffered_bytes")
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
  /// through the mailbox. `answered` grows by the IsSubscriber calls the hot path answered; every
  /// other call is recorded here.
  private func answer(
    _ bytes: inout ByteBuffer, into output: inout ByteBuffer, from connection: ServerConnection, answered: inout Int
  ) {
    var decoder = connection.decoder
    let maximumPayloadLength = shared.config.maximumPayloadLength
    limitPayloads(of: &decoder, for: connection)
    while true {
      // The hot path first: runs of IsSubscriber frames answered together from the read's bytes.
      // Whatever it leaves goes through the decoder, one frame at a time.
      while !decoder.isDiscarding, connection.caller.mayRead {
        let (consumed, together) = bytes.withUnsafeReadableBytes {
          shared.dispatcher.answerIsSubscriberCalls(
            in: $0, maximumPayloadLength: maximumPayloadLength, into: &output, calls: calls, startNs: nowNs)
        }
        if consumed == 0 {
          // GetSubscription's run (issue 30): answered the same way, recorded there.
          guard connection.caller.mayGetSubscription else { break }
          let gotten = bytes.withUnsafeReadableBytes {
            shared.dispatcher.answerGetSubscriptionCalls(
              in: $0, maximumPayloadLength: maximumPayloadLength, into: &output, calls: calls, startNs: nowNs)
          }
          guard gotten > 0 else { break }
          bytes.moveReaderIndex(forwardBy: gotten)
          continue
        }
        answered += together
        bytes.moveReaderIndex(forwardBy: consumed)
      }
      guard let request = decoder.decodeFrame(buffer: &bytes) else { break }
      switch request {
      case .oversized(let methodIndex, let requestId, let length):
        shared.logger.debug(
          "request payload over the limit",
          metadata: ["rpc.method_index": "\(methodIndex)", "rpc.message_length": "\(length)"])
        output.writeResponseHeader(
          status: .serviceFailed, methodIndex: methodIndex, requestId: requestId, messageLength: 0)
        recordCall(methodIndex, .failed)
      case .request(let frame):
        let outcome = shared.dispatcher.dispatch(
          methodIndex: frame.methodIndex, requestId: frame.requestId, payload: frame.payload,
          caller: &connection.caller, into: &output)
        switch outcome {
        case .answered(let ended):
          recordCall(frame.methodIndex, ended)
        case .deferred(let work):
          start(
            work, methodIndex: frame.methodIndex, requestId: frame.requestId, for: connection, refusingInto: &output)
        }
      }
      // Too many failed Authenticate calls: nothing after them is answered.
      if connection.caller.mustClose { break }
      limitPayloads(of: &decoder, for: connection)
    }
    connection.decoder = decoder
  }

  /// Gives `decoder` the payload limit of the connection's caller, when it changed and the decoder
  /// is between frames: `maximumUnauthenticatedPayloadLength` without an authenticated caller
  /// (callers configured), `maximumPayloadLength` with one.
  private func limitPayloads(of decoder: inout RequestFrameDecoder, for connection: ServerConnection) {
    let limit =
      connection.caller.identity == nil
      ? min(shared.config.maximumUnauthenticatedPayloadLength, shared.config.maximumPayloadLength)
      : shared.config.maximumPayloadLength
    guard decoder.maximumPayloadLength != limit, !decoder.isDiscarding else { return }
    decoder = RequestFrameDecoder(maximumPayloadLength: limit)
  }

  func start(
    _ work: @escaping @Sendable () async throws -> DeferredAnswer, methodIndex: UInt32, requestId: UInt32,
    for connection: ServerConnection, refusingInto output: inout ByteBuffer
  ) {
    guard connection.pending < shared.config.maximumPendingPerConnection else {
      output.writeResponseHeader(
        status: .tooManyPending, methodIndex: methodIndex, requestId: requestId, messageLength: 0)
      recordCall(methodIndex, .failed)
      return
    }
    let call = DeferredCall(
      work: work, mailbox: mailbox, token: connection.token, methodIndex: methodIndex, requestId: requestId,
      startNs: nowNs)
    guard shared.deferredCalls.submit(call) else {
      output.writeResponseHeader(
        status: .serviceFailed, methodIndex: methodIndex, requestId: requestId, messageLength: 0)
      recordCall(methodIndex, .failed)
      return
    }
    connection.pending += 1
  }

  /// Records one call of the message path (off the hot path), timed from the wake-up that read it.
  private func recordCall(_ methodIndex: UInt32, _ outcome: CallOutcome) {
    calls.record(
      method: CallCounters.slot(methodIndex: methodIndex), outcome: outcome, nanoseconds: tg_net_now_ns() &- nowNs)
  }
}
