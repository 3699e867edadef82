import NIOCore

/// A `GetSubscriptionRequest`'s `user_id` as UTF-8 bytes inside the request frame: what the fast
/// path looks up, without building a `String` or a message. Valid only during the call it is passed to.
public struct GetSubscriptionFields {
  public var userId: UnsafeRawBufferPointer

  public init(userId: UnsafeRawBufferPointer) {
    self.userId = userId
  }

  /// The fields of `bytes` (a `GetSubscriptionRequest`); nil when they do not decode. Read as
  /// `IsSubscriberFields` reads its request: unknown fields (and `user_id` with another wire type)
  /// are skipped, the last `user_id` wins, and anything swift-protobuf refuses (not protobuf, a
  /// string that is not valid UTF-8) is refused.
  public init?(parsing bytes: UnsafeRawBufferPointer) {
    var userId = UnsafeRawBufferPointer(start: nil, count: 0)
    guard ProtoReader.readStringFields(in: bytes, upTo: 1, { _, text in userId = text }) else { return nil }
    self.userId = userId
  }
}
