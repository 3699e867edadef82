import NIOCore

/// An `IsSubscriberRequest`'s two strings as UTF-8 bytes inside the request frame: what the hot
/// path looks up, without building a `String`. Valid only during the call it is passed to.
public struct IsSubscriberFields {
  public var userId: UnsafeRawBufferPointer
  public var entitlement: UnsafeRawBufferPointer

  public init(userId: UnsafeRawBufferPointer, entitlement: UnsafeRawBufferPointer) {
    self.userId = userId
    self.entitlement = entitlement
  }

  /// Reads the fields of `payload` (an `IsSubscriberRequest`) and calls `body` with them; nil when
  /// the payload does not decode. Unknown fields (and, as swift-protobuf does, known ones with
  /// another wire type) are skipped; anything that is not valid protobuf, or a string that is not
  /// valid UTF-8, is refused, as swift-protobuf refuses it.
  public static func withFields<Result>(of payload: ByteBuffer, _ body: (IsSubscriberFields) -> Result) -> Result? {
    payload.withUnsafeReadableBytes { bytes in
      guard let fields = IsSubscriberFields(parsing: bytes) else { return nil }
      return body(fields)
    }
  }

  /// The fields of `bytes` (an `IsSubscriberRequest`); nil when they do not decode.
  public init?(parsing bytes: UnsafeRawBufferPointer) {
    let empty = UnsafeRawBufferPointer(start: nil, count: 0)
    userId = empty
    entitlement = empty
    var reader = ProtoReader(bytes)
    while !reader.isAtEnd {
      guard let key = reader.tag().map(UInt64.init), key >> 3 != 0 else { return nil }
      switch (key >> 3, key & 7) {
      case (1, 2), (2, 2):
        guard let text = reader.lengthDelimited(), text.isValidUTF8 else { return nil }
        if key >> 3 == 1 { userId = text } else { entitlement = text }
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

/// An `IsSubscriberRequest` read straight from the frame's bytes: the two strings, nothing else.
public struct IsSubscriberQuery: Sendable, Hashable {
  public var userId = ""
  public var entitlement = ""

  public init(userId: String = "", entitlement: String = "") {
    self.userId = userId
    self.entitlement = entitlement
  }

  /// Nil when `payload` does not decode (as `IsSubscriberFields` reads it).
  public init?(decoding payload: ByteBuffer) {
    guard
      let query = IsSubscriberFields.withFields(
        of: payload,
        {
          IsSubscriberQuery(
            userId: String(decoding: $0.userId, as: UTF8.self),
            entitlement: String(decoding: $0.entitlement, as: UTF8.self))
        })
    else { return nil }
    self = query
  }
}

/// Reads protobuf's wire primitives from raw bytes.
struct ProtoReader {
  private let bytes: UnsafeRawBufferPointer
  private var offset = 0

  init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

  var isAtEnd: Bool { offset >= bytes.count }

  mutating func varint() -> UInt64? {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    while offset < bytes.count {
      let byte = bytes[offset]
      offset += 1
      value |= UInt64(byte & 0x7F) << shift
      if byte & 0x80 == 0 { return value }
      shift += 7
      if shift >= 64 { return nil }
    }
    return nil
  }

  /// A field's tag, read as swift-protobuf reads one: a varint of at most five bytes whose value
  /// fits in 32 bits. A longer encoding, even of a small number, is not protobuf.
  mutating func tag() -> UInt32? {
    var value: UInt32 = 0
    for index in 0..<5 {
      guard offset < bytes.count else { return nil }
      let byte = bytes[offset]
      offset += 1
      if index == 4 {
        guard byte <= 0x0F else { return nil }
        return value | UInt32(byte) << 28
      }
      value |= UInt32(byte & 0x7F) << (7 * index)
      if byte & 0x80 == 0 { return value }
    }
    return nil
  }

  mutating func lengthDelimited() -> UnsafeRawBufferPointer? {
    guard let length = varint(), length <= UInt64(bytes.count - offset) else { return nil }
    defer { offset += Int(length) }
    return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + Int(length)])
  }

  mutating func skip(_ count: Int) -> Bool {
    guard bytes.count - offset >= count else { return false }
    offset += count
    return true
  }
}

extension UnsafeRawBufferPointer {
  /// Whether the bytes are valid UTF-8; ASCII (the usual id) is checked eight bytes at a time.
  var isValidUTF8: Bool {
    var offset = 0
    while offset + 8 <= count {
      if loadUnaligned(fromByteOffset: offset, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 {
        return String(validating: self, as: UTF8.self) != nil
      }
      offset += 8
    }
    while offset < count {
      if self[offset] & 0x80 != 0 { return String(validating: self, as: UTF8.self) != nil }
      offset += 1
    }
    return true
  }
}
