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
    userId = UnsafeRawBufferPointer(start: nil, count: 0)
    var reader = ProtoReader(bytes)
    while !reader.isAtEnd {
      guard let key = reader.tag().map(UInt64.init), key >> 3 != 0 else { return nil }
      switch (key >> 3, key & 7) {
      case (1, 2):
        guard let text = reader.lengthDelimited(), text.isValidUTF8 else { return nil }
        userId = text
      case (_, 0):
        guard reader.varint() != nil else { return nil }
      case (_, 1):
        guard reader.skip(8) else { return nil }
      case (_, 2):
        guard reader.lengthDelimited() != nil else { return nil }
      case (_, 5):
        guard reader.skip(4) else { return nil }
      default:
        // Groups (3, 4) and reserved wire types: not in this proto3 message.
        return nil
      }
    }
  }
}
