import NIOCore
import SwiftProtobuf

/// Turns one request frame into its answer: decode, call the handler, encode. The only place that
/// maps a method index to code.
struct EntitlementsDispatcher: Sendable {
  let handler: any EntitlementsHandler

  enum Outcome {
    /// The answer frame is in the output buffer.
    case answered
    /// Answered later by running `work` off the event loop (not started yet, so the caller can
    /// refuse it); a thrown error answers `serviceFailed`.
    case deferred(@Sendable () async throws -> ByteBuffer)
  }

  /// Appends the answer to `output`, or hands back the work of a deferred call.
  func dispatch(methodIndex: UInt32, requestId: UInt32, payload: ByteBuffer, into output: inout ByteBuffer) -> Outcome {
    guard let method = EntitlementsMethod(rawValue: methodIndex) else {
      output.writeResponseHeader(status: .serviceFailed, methodIndex: methodIndex, requestId: requestId, messageLength: 0)
      return .answered
    }
    do {
      switch method {
      case .isSubscriber:
        // Off the hot path: calls its handler left, and frames its scan did not take.
        let request = try Tollgate_V1_IsSubscriberRequest(serializedBytes: payload.readableBytesSpan)
        try output.writeResponseFrame(methodIndex: methodIndex, requestId: requestId, message: handler.isSubscriber(request))
      case .getSubscription:
        let request = try Tollgate_V1_GetSubscriptionRequest(serializedBytes: payload.readableBytesSpan)
        try output.writeResponseFrame(methodIndex: methodIndex, requestId: requestId, message: handler.getSubscription(request))
      case .health:
        let request = try Tollgate_V1_HealthRequest(serializedBytes: payload.readableBytesSpan)
        try output.writeResponseFrame(methodIndex: methodIndex, requestId: requestId, message: handler.health(request))
      case .submitPurchase:
        let request = try Tollgate_V1_SubmitPurchaseRequest(serializedBytes: payload.readableBytesSpan)
        let handler = self.handler
        return .deferred { try await handler.submitPurchase(request).encoded() }
      }
    } catch {
      // Undecodable payload (or, in theory, an unencodable response): the call fails, the
      // connection does not.
      output.writeResponseHeader(status: .serviceFailed, methodIndex: methodIndex, requestId: requestId, messageLength: 0)
    }
    return .answered
  }

  /// The most IsSubscriber calls answered together.
  static let batchLimit = 64

  /// The hot path: answers the IsSubscriber frames at the start of `bytes`, as many as follow
  /// one another complete and well-formed (up to `batchLimit`), together through the handler's
  /// `answerIsSubscriber`. A call the handler leaves is answered here through the message path,
  /// and the rest of the run goes back to the handler, so the run is parsed once. Returns the
  /// length of the frames it answered, which the caller consumes. It stops at anything else
  /// (another method, an incomplete or oversized frame, a payload that does not decode): that is
  /// `dispatch`'s.
  func answerIsSubscriberCalls(in bytes: UnsafeRawBufferPointer, maximumPayloadLength: Int, into output: inout ByteBuffer) -> Int {
    withUnsafeTemporaryAllocation(of: IsSubscriberCall.self, capacity: Self.batchLimit) { calls in
      withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: Self.batchLimit) { payloads in
        var count = 0
        var offset = 0
        while count < Self.batchLimit, let header = RequestFrame.Header(in: bytes, at: offset),
          header.methodIndex == EntitlementsMethod.isSubscriber.rawValue
        {
          let length = Int(header.messageLength)
          let start = offset + RequestFrame.headerLength
          guard length <= maximumPayloadLength, bytes.count - start >= length,
            let fields = IsSubscriberFields(parsing: UnsafeRawBufferPointer(rebasing: bytes[start..<start + length]))
          else { break }
          calls.initializeElement(at: count, to: IsSubscriberCall(requestId: header.requestId, fields: fields))
          payloads.initializeElement(at: count, to: start..<start + length)
          offset = start + length
          count += 1
        }
        var next = 0
        while next < count {
          next += min(handler.answerIsSubscriber(UnsafeBufferPointer(rebasing: calls[next..<count]), into: &output), count - next)
          guard next < count else { break }
          // Left to the message path (an invalid request, answered with its error).
          _ = dispatch(
            methodIndex: EntitlementsMethod.isSubscriber.rawValue, requestId: calls[next].requestId,
            payload: ByteBuffer(bytes: UnsafeRawBufferPointer(rebasing: bytes[payloads[next]])), into: &output)
          next += 1
        }
        return offset
      }
    }
  }
}

extension SwiftProtobuf.Message {
  func encoded() throws -> ByteBuffer {
    let bytes: [UInt8] = try serializedBytes()
    return ByteBuffer(bytes: bytes)
  }
}

extension ByteBuffer {
  /// Appends a response frame whose payload `writePayload` appends; the length is filled in after.
  mutating func writeResponseFrame(
    status: RPCStatus, methodIndex: UInt32, requestId: UInt32, _ writePayload: (inout ByteBuffer) throws -> Void
  ) rethrows {
    let headerAt = writerIndex
    writeResponseHeader(status: status, methodIndex: methodIndex, requestId: requestId, messageLength: 0)
    do {
      try writePayload(&self)
    } catch {
      moveWriterIndex(to: headerAt)
      throw error
    }
    let length = writerIndex - headerAt - ResponseFrame.headerLength
    setInteger(UInt32(length), at: headerAt + 8, endianness: .little)
  }

  /// Appends a successful response frame carrying `message`.
  mutating func writeResponseFrame(methodIndex: UInt32, requestId: UInt32, message: some SwiftProtobuf.Message) throws {
    let bytes: [UInt8] = try message.serializedBytes()
    writeResponseFrame(status: .success, methodIndex: methodIndex, requestId: requestId) { $0.writeBytes(bytes) }
  }
}
