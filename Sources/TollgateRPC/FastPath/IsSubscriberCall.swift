import NIOCore

/// One IsSubscriber request of a read, parsed where it lies in the read's bytes: its request id
/// and its two fields. What the hot path answers in bulk; valid only during the call it is
/// passed to.
public struct IsSubscriberCall {
  public var requestId: UInt32
  public var fields: IsSubscriberFields

  public init(requestId: UInt32, fields: IsSubscriberFields) {
    self.requestId = requestId
    self.fields = fields
  }
}

extension ByteBuffer {
  /// Appends the success frame that answers `call` with `answer`.
  public mutating func writeIsSubscriberResponseFrame(answering call: IsSubscriberCall, with answer: IsSubscriberAnswer) {
    writeIsSubscriberResponseFrame(
      methodIndex: EntitlementsMethod.isSubscriber.rawValue, requestId: call.requestId, answer: answer)
  }
}
