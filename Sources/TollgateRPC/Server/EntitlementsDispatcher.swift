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
        guard let answer = IsSubscriberFields.withFields(of: payload, handler.isSubscriberAnswer) else {
          throw DecodingFailed()
        }
        if let answer {
          output.writeIsSubscriberResponseFrame(methodIndex: methodIndex, requestId: requestId, answer: answer)
        } else {
          let request = try Tollgate_V1_IsSubscriberRequest(serializedBytes: payload.readableBytesSpan)
          try output.writeResponseFrame(methodIndex: methodIndex, requestId: requestId, message: handler.isSubscriber(request))
        }
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

  /// The most IsSubscriber requests of one read warmed together.
  static let warmBatch = 64

  /// Hands the user ids of the IsSubscriber requests among the complete frames at the start of
  /// `bytes` (frame boundaries, not consumed) to the handler's `warm`, when there are several.
  func warm(_ bytes: ByteBuffer, maximumPayloadLength: Int) {
    // Two frames of at least a header each, or nothing to overlap.
    guard bytes.readableBytes >= 2 * RequestFrame.headerLength else { return }
    bytes.withUnsafeReadableBytes { bytes in
      withUnsafeTemporaryAllocation(of: UnsafeRawBufferPointer.self, capacity: Self.warmBatch) { userIds in
        var count = 0
        var offset = 0
        while count < Self.warmBatch, let header = RequestFrame.Header(in: bytes, at: offset) {
          let length = Int(header.messageLength)
          let start = offset + RequestFrame.headerLength
          guard length <= maximumPayloadLength, bytes.count - start >= length else { break }
          if header.methodIndex == EntitlementsMethod.isSubscriber.rawValue,
            let fields = IsSubscriberFields(
              parsing: UnsafeRawBufferPointer(rebasing: bytes[start..<start + length]), validatingUTF8: false)
          {
            userIds[count] = fields.userId
            count += 1
          }
          offset = start + length
        }
        if count > 1 { handler.warm(userIds: UnsafeBufferPointer(rebasing: userIds[0..<count])) }
      }
    }
  }

  private struct DecodingFailed: Error {}
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
