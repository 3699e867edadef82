/// A Google RFC 3339 timestamp field, held as Int64 ms since the epoch (see `RFC3339`).
///
/// A missing key or `null` decodes as `nil`; a string that is not a timestamp is a decoding
/// error, never a silent zero.
@propertyWrapper
public struct GoogleTime: Sendable, Hashable, Decodable {
  public var wrappedValue: Int64?

  public init(wrappedValue: Int64?) { self.wrappedValue = wrappedValue }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      wrappedValue = nil
      return
    }
    let text = try container.decode(String.self)
    guard let milliseconds = RFC3339.milliseconds(text) else {
      throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an RFC 3339 time: \(text)")
    }
    wrappedValue = milliseconds
  }
}

/// A Google `…Millis` field: ms since the epoch written as a JSON string (`"1756911600000"`),
/// or, leniently, as a number. A missing key or `null` decodes as `nil`.
@propertyWrapper
public struct GoogleMillis: Sendable, Hashable, Decodable {
  public var wrappedValue: Int64?

  public init(wrappedValue: Int64?) { self.wrappedValue = wrappedValue }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      wrappedValue = nil
    } else if let number = try? container.decode(Int64.self) {
      wrappedValue = number
    } else {
      let text = try container.decode(String.self)
      guard let number = Int64(text) else {
        throw DecodingError.dataCorruptedError(in: container, debugDescription: "not milliseconds: \(text)")
      }
      wrappedValue = number
    }
  }
}

extension KeyedDecodingContainer {
  /// Lets an absent key decode to `@GoogleTime var x: Int64? = nil`.
  public func decode(_ type: GoogleTime.Type, forKey key: Key) throws -> GoogleTime {
    try decodeIfPresent(type, forKey: key) ?? GoogleTime(wrappedValue: nil)
  }

  /// Lets an absent key decode to `@GoogleMillis var x: Int64? = nil`.
  public func decode(_ type: GoogleMillis.Type, forKey key: Key) throws -> GoogleMillis {
    try decodeIfPresent(type, forKey: key) ?? GoogleMillis(wrappedValue: nil)
  }
}
