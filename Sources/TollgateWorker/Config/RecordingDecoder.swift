/// A `Decoder` over `ConfigNode`s that marks every key a type asks for (`ConfigKeys`). It decodes
/// as `JSONDecoder` does (no conversions between strings, numbers and booleans), so that a type
/// walks the same keys under both.
struct RecordingDecoder: Decoder {
  let node: ConfigNode
  let codingPath: [any CodingKey]
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    guard case .object(let children) = node.value else { throw mismatch([String: Int].self) }
    node.opened = true
    return KeyedDecodingContainer(KeyedContainer(node: node, children: children, codingPath: codingPath))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    guard case .array(let items) = node.value else { throw mismatch([Int].self) }
    return UnkeyedContainer(items: items, codingPath: codingPath)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    SingleValue(node: node, codingPath: codingPath)
  }

  func mismatch(_ type: Any.Type) -> DecodingError {
    .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "not a \(type)"))
  }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let node: ConfigNode
  let children: [String: ConfigNode]
  let codingPath: [any CodingKey]

  var allKeys: [Key] { children.keys.compactMap { Key(stringValue: $0) } }

  func contains(_ key: Key) -> Bool {
    node.read.insert(key.stringValue)
    return children[key.stringValue] != nil
  }

  private func child(_ key: Key) throws -> RecordingDecoder {
    node.read.insert(key.stringValue)
    guard let child = children[key.stringValue] else {
      throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no value"))
    }
    return RecordingDecoder(node: child, codingPath: codingPath + [key])
  }

  func decodeNil(forKey key: Key) throws -> Bool {
    guard case .null = try child(key).node.value else { return false }
    return true
  }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try T(from: child(key)) }
  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try Bool(from: child(key)) }
  func decode(_ type: String.Type, forKey key: Key) throws -> String { try String(from: child(key)) }
  func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try Double(from: child(key)) }
  func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try Float(from: child(key)) }
  func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try Int(from: child(key)) }
  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try Int8(from: child(key)) }
  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try Int16(from: child(key)) }
  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try Int32(from: child(key)) }
  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try Int64(from: child(key)) }
  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try UInt(from: child(key)) }
  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try UInt8(from: child(key)) }
  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try UInt16(from: child(key)) }
  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try UInt32(from: child(key)) }
  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try UInt64(from: child(key)) }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type, forKey key: Key
  ) throws -> KeyedDecodingContainer<NestedKey> {
    try child(key).container(keyedBy: type)
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    try child(key).unkeyedContainer()
  }

  func superDecoder() throws -> any Decoder {
    guard let key = Key(stringValue: "super") else {
      throw RecordingDecoder(node: node, codingPath: codingPath).mismatch(Key.self)
    }
    return try child(key)
  }
  func superDecoder(forKey key: Key) throws -> any Decoder { try child(key) }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
  let items: [ConfigNode]
  let codingPath: [any CodingKey]
  var currentIndex = 0

  init(items: [ConfigNode], codingPath: [any CodingKey]) {
    self.items = items
    self.codingPath = codingPath
  }

  var count: Int? { items.count }
  var isAtEnd: Bool { currentIndex >= items.count }

  private mutating func next() throws -> RecordingDecoder {
    guard !isAtEnd else {
      throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "at the end"))
    }
    defer { currentIndex += 1 }
    return RecordingDecoder(node: items[currentIndex], codingPath: codingPath + [ConfigKey(intValue: currentIndex)])
  }

  mutating func decodeNil() throws -> Bool {
    guard !isAtEnd, case .null = items[currentIndex].value else { return false }
    currentIndex += 1
    return true
  }

  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: next()) }
  mutating func decode(_ type: Bool.Type) throws -> Bool { try Bool(from: next()) }
  mutating func decode(_ type: String.Type) throws -> String { try String(from: next()) }
  mutating func decode(_ type: Double.Type) throws -> Double { try Double(from: next()) }
  mutating func decode(_ type: Float.Type) throws -> Float { try Float(from: next()) }
  mutating func decode(_ type: Int.Type) throws -> Int { try Int(from: next()) }
  mutating func decode(_ type: Int8.Type) throws -> Int8 { try Int8(from: next()) }
  mutating func decode(_ type: Int16.Type) throws -> Int16 { try Int16(from: next()) }
  mutating func decode(_ type: Int32.Type) throws -> Int32 { try Int32(from: next()) }
  mutating func decode(_ type: Int64.Type) throws -> Int64 { try Int64(from: next()) }
  mutating func decode(_ type: UInt.Type) throws -> UInt { try UInt(from: next()) }
  mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try UInt8(from: next()) }
  mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try UInt16(from: next()) }
  mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try UInt32(from: next()) }
  mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try UInt64(from: next()) }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type
  ) throws -> KeyedDecodingContainer<NestedKey> {
    try next().container(keyedBy: type)
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
  mutating func superDecoder() throws -> any Decoder { try next() }
}

private struct SingleValue: SingleValueDecodingContainer {
  let node: ConfigNode
  let codingPath: [any CodingKey]

  private func mismatch(_ type: Any.Type) -> DecodingError {
    RecordingDecoder(node: node, codingPath: codingPath).mismatch(type)
  }

  func decodeNil() -> Bool {
    guard case .null = node.value else { return false }
    return true
  }

  func decode(_ type: Bool.Type) throws -> Bool {
    guard case .bool(let value) = node.value else { throw mismatch(type) }
    return value
  }

  func decode(_ type: String.Type) throws -> String {
    guard case .string(let value) = node.value else { throw mismatch(type) }
    return value
  }

  func decode(_ type: Double.Type) throws -> Double {
    switch node.value {
    case .integer(let value): return Double(value)
    case .number(let value): return value
    default: throw mismatch(type)
    }
  }

  func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }

  private func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
    guard case .integer(let value) = node.value, let integer = I(exactly: value) else { throw mismatch(type) }
    return integer
  }

  func decode(_ type: Int.Type) throws -> Int { try integer(type) }
  func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
  func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
  func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
  func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
  func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
  func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
  func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
  func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
  func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

  func decode<T: Decodable>(_ type: T.Type) throws -> T {
    try T(from: RecordingDecoder(node: node, codingPath: codingPath))
  }
}
