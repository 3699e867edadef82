/// A minimal DER reader for the app receipt payload (definite lengths only).
struct DERReader {
  struct Element {
    var tag: UInt8
    var value: ArraySlice<UInt8>
  }

  private var bytes: ArraySlice<UInt8>

  init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

  var isAtEnd: Bool { bytes.isEmpty }

  /// The next element, or `nil` if the bytes are not well-formed DER.
  mutating func next() -> Element? {
    guard let tag = bytes.first, tag & 0x1F != 0x1F else { return nil }  // no high-tag-number form
    var index = bytes.index(after: bytes.startIndex)
    guard index < bytes.endIndex else { return nil }
    let first = bytes[index]
    index = bytes.index(after: index)
    var length = 0
    if first < 0x80 {
      length = Int(first)
    } else {
      let count = Int(first & 0x7F)
      guard count >= 1, count <= 4, bytes.distance(from: index, to: bytes.endIndex) >= count else { return nil }
      for _ in 0..<count {
        length = length << 8 | Int(bytes[index])
        index = bytes.index(after: index)
      }
    }
    guard bytes.distance(from: index, to: bytes.endIndex) >= length else { return nil }
    let end = bytes.index(index, offsetBy: length)
    defer { bytes = bytes[end...] }
    return Element(tag: tag, value: bytes[index..<end])
  }

  /// The value of a non-negative INTEGER (up to 8 bytes).
  static func integer(_ value: ArraySlice<UInt8>) -> Int64? {
    guard !value.isEmpty, value.count <= 9 else { return nil }
    var result: Int64 = 0
    for byte in value { result = result << 8 | Int64(byte) }
    return value.first.map { $0 & 0x80 == 0 } == true ? result : nil
  }

  /// An attribute value: an encoded UTF8String / IA5String, or an INTEGER.
  static func string(_ encoded: ArraySlice<UInt8>) -> String? {
    var reader = DERReader(encoded)
    guard let element = reader.next() else { return nil }
    switch element.tag {
    case 0x0C, 0x16, 0x13: return String(decoding: element.value, as: UTF8.self)
    case 0x02: return integer(element.value).map(String.init)
    default: return nil
    }
  }

  static func integerAttribute(_ encoded: ArraySlice<UInt8>) -> Int64? {
    var reader = DERReader(encoded)
    guard let element = reader.next(), element.tag == 0x02 else { return nil }
    return integer(element.value)
  }

  /// The receipt's `SET OF SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`.
  static func attributes(_ bytes: ArraySlice<UInt8>) -> [(type: Int64, value: ArraySlice<UInt8>)]? {
    var outer = DERReader(bytes)
    guard let set = outer.next(), set.tag == 0x31 else { return nil }
    var reader = DERReader(set.value)
    var result: [(Int64, ArraySlice<UInt8>)] = []
    while !reader.isAtEnd {
      guard let sequence = reader.next(), sequence.tag == 0x30 else { return nil }
      var fields = DERReader(sequence.value)
      guard let type = fields.next(), type.tag == 0x02, let typeValue = integer(type.value),
        let version = fields.next(), version.tag == 0x02, let value = fields.next(), value.tag == 0x04
      else { return nil }
      result.append((typeValue, value.value))
    }
    return result
  }
}
