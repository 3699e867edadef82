import NIOCore
import SwiftProtobuf

/// Turns one request frame into its answer: decode, call the handler, encode. The only place that
/// maps a method index to code.
struct EntitlementsDispatcher: Sendable {
  let handler: any EntitlementsHandler

  enum Outcome {
    /// Answered on the spot: the frame's status and payload.
    case immediate(RPCStatus, ByteBuffer)
    /// Answered later by running `work` off the event loop (not started yet, so the caller can
    /// refuse it); a thrown error answers `serviceFailed`.
    case deferred(@Sendable () async throws -> ByteBuffer)
  }

  func dispatch(methodIndex: UInt32, payload: ByteBuffer, allocator: ByteBufferAllocator)
    -> Outcome
  {
    guard let method = EntitlementsMethod(rawValue: methodIndex) else {
      return .immediate(.serviceFailed, allocator.buffer(capacity: 0))
    }
    do {
      switch method {
      case .isSubscriber:
        let request = try Tollgate_V1_IsSubscriberRequest(serializedBytes: payload.readableBytesSpan)
        return .immediate(.success, try handler.isSubscriber(request).encoded(allocator))
      case .getSubscription:
        let request = try Tollgate_V1_GetSubscriptionRequest(serializedBytes: payload.readableBytesSpan)
        return .immediate(.success, try handler.getSubscription(request).encoded(allocator))
      case .health:
        let request = try Tollgate_V1_HealthRequest(serializedBytes: payload.readableBytesSpan)
        return .immediate(.success, try handler.health(request).encoded(allocator))
      case .submitPurchase:
        let request = try Tollgate_V1_SubmitPurchaseRequest(serializedBytes: payload.readableBytesSpan)
        let handler = self.handler
        return .deferred { try await handler.submitPurchase(request).encoded(allocator) }
      }
    } catch {
      // Undecodable payload (or, in theory, an unencodable response): the call fails, the
      // connection does not.
      return .immediate(.serviceFailed, allocator.buffer(capacity: 0))
    }
  }
}

extension SwiftProtobuf.Message {
  func encoded(_ allocator: ByteBufferAllocator) throws -> ByteBuffer {
    let bytes: [UInt8] = try serializedBytes()
    return allocator.buffer(bytes: bytes)
  }
}
