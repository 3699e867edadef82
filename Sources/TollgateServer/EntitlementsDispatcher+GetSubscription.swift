import NIOCore
import TollgateWire

extension EntitlementsDispatcher {
  /// GetSubscription's fast path, for a caller already allowed to call it: reads the request's
  /// `user_id` in place and writes the handler's answer as a whole success frame. False, with
  /// nothing written, when the payload does not decode or the handler leaves the call to its
  /// message path (which then answers it, with its error).
  func answerGetSubscription(
    _ payload: ByteBuffer, methodIndex: UInt32, requestId: UInt32, into output: inout ByteBuffer
  ) -> Bool {
    payload.withUnsafeReadableBytes { bytes in
      guard let fields = GetSubscriptionFields(parsing: bytes) else { return false }
      return handler.answerGetSubscription(userId: fields.userId) { answer in
        output.writeGetSubscriptionResponseFrame(methodIndex: methodIndex, requestId: requestId, answer: answer)
      }
    }
  }
}
