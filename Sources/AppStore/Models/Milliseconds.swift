/// An Apple timestamp: milliseconds since the epoch, as Int64.
///
/// Apple's StoreKit testing in Xcode writes fractional milliseconds (`1697679936049.7297`);
/// they truncate toward zero. Negative values (the year 0001) parse. A missing key or `null`
/// decodes as `nil`.
@propertyWrapper
public struct Milliseconds: Sendable, Hashable, Decodable {
  public var wrappedValue: Int64?

  public init(wrappedValue: Int64?) { self.wrappedValue = wrappedValue }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      wrappedValue = nil
    } else if let integer = try? container.decode(Int64.self) {
      wrappedValue = integer
    } else {
      let value = try container.decode(Double.self)
      guard value.isFinite, value.magnitude < 9.2e18 else {
        throw DecodingError.dataCorruptedError(in: container, debugDescription: "timestamp out of range: \(value)")
      }
      wrappedValue = Int64(value.rounded(.towardZero))
    }
  }
}

extension KeyedDecodingContainer {
  /// Lets an absent key decode to `@Milliseconds var x: Int64? = nil`.
  public func decode(_ type: Milliseconds.Type, forKey key: Key) throws -> Milliseconds {
    try decodeIfPresent(type, forKey: key) ?? Milliseconds(wrappedValue: nil)
  }
}
