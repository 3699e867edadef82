/// Reads protobuf's wire primitives from raw bytes.
struct ProtoReader {
  private let bytes: UnsafeRawBufferPointer
  private var offset = 0

  init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

  /// Reads a request whose known fields are strings numbered 1 through `upTo`, as swift-protobuf
  /// reads it: `body` gets each such field (the last one of a number wins, so the caller keeps
  /// the latest); unknown fields, and known ones with another wire type, are skipped. False when
  /// the bytes are not protobuf or a known string is not valid UTF-8: swift-protobuf refuses those.
  @inline(__always)
  static func readStringFields(
    in bytes: UnsafeRawBufferPointer, upTo lastField: UInt64, _ body: (UInt64, UnsafeRawBufferPointer) -> Void
  ) -> Bool {
    var reader = ProtoReader(bytes)
    while !reader.isAtEnd {
      guard let key = reader.tag().map(UInt64.init), key >> 3 != 0 else { return false }
      let field = key >> 3
      switch key & 7 {
      case 2 where field <= lastField:
        guard let text = reader.lengthDelimited(), text.isValidUTF8 else { return false }
        body(field, text)
      case 0:
        guard reader.varint() != nil else { return false }
      case 1:
        guard reader.skip(8) else { return false }
      case 2:
        guard reader.lengthDelimited() != nil else { return false }
      case 5:
        guard reader.skip(4) else { return false }
      default:
        // Groups (3, 4) and reserved wire types: not in these proto3 messages.
        return false
      }
    }
    return true
  }

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
