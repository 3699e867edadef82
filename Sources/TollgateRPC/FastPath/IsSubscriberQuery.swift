import NIOCore

/// An `IsSubscriberRequest` read straight from the frame's bytes: the two strings, nothing else.
/// Unknown fields (and, as swift-protobuf does, known ones with another wire type) are skipped;
/// anything that is not valid protobuf or valid UTF-8 is refused, as swift-protobuf refuses it.
public struct IsSubscriberQuery: Sendable, Hashable {
  public var userId = ""
  public var entitlement = ""

  public init(userId: String = "", entitlement: String = "") {
    self.userId = userId
    self.entitlement = entitlement
  }

  /// Nil when `payload` does not decode.
  public init?(decoding payload: ByteBuffer) {
    var buffer = payload
    while buffer.readableBytes > 0 {
      guard let key = buffer.readProtoVarint(), key >> 3 != 0 else { return nil }
      switch (key >> 3, key & 7) {
      case (1, 2), (2, 2):
        guard let length = buffer.readProtoVarint(), length <= UInt64(buffer.readableBytes),
          let text = try? buffer.readUTF8ValidatedString(length: Int(length))
        else { return nil }
        if key >> 3 == 1 { userId = text } else { entitlement = text }
      case (_, 0):
        guard buffer.readProtoVarint() != nil else { return nil }
      case (_, 1):
        guard buffer.readSlice(length: 8) != nil else { return nil }
      case (_, 2):
        guard let length = buffer.readProtoVarint(), length <= UInt64(buffer.readableBytes) else { return nil }
        buffer.moveReaderIndex(forwardBy: Int(length))
      case (_, 5):
        guard buffer.readSlice(length: 4) != nil else { return nil }
      default:
        // Groups (3, 4) and reserved wire types: not in this proto3 message.
        return nil
      }
    }
  }
}

extension ByteBuffer {
  mutating func readProtoVarint() -> UInt64? {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    while let byte = readInteger(as: UInt8.self) {
      value |= UInt64(byte & 0x7F) << shift
      if byte & 0x80 == 0 { return value }
      shift += 7
      if shift >= 64 { return nil }
    }
    return nil
  }
}
