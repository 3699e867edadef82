/// A list field whose elements decode one by one: an element that does not decode (a string
/// where an object belongs, a malformed time) is left out and counted, so one bad element never
/// loses the rest of the resource.
@propertyWrapper
public struct LossyList<Element: Decodable & Sendable & Hashable>: Sendable, Hashable, Decodable {
  public var wrappedValue: [Element]?
  /// How many elements did not decode.
  public var droppedCount: Int

  public init(wrappedValue: [Element]?) {
    self.init(wrappedValue, droppedCount: 0)
  }

  private init(_ elements: [Element]?, droppedCount: Int) {
    self.wrappedValue = elements
    self.droppedCount = droppedCount
  }

  /// `$field`: the list together with its dropped count.
  public var projectedValue: LossyList<Element> { self }

  public init(from decoder: any Decoder) throws {
    let single = try decoder.singleValueContainer()
    if single.decodeNil() {
      self.init(wrappedValue: nil)
      return
    }
    var container = try decoder.unkeyedContainer()
    var elements: [Element] = []
    var dropped = 0
    while !container.isAtEnd {
      if let element = try? container.decode(Element.self) {
        elements.append(element)
      } else {
        // Step over the element that did not decode.
        _ = try? container.decode(Skipped.self)
        dropped += 1
      }
    }
    self.init(elements, droppedCount: dropped)
  }
}

/// Any JSON value, read and thrown away.
private struct Skipped: Decodable {
  init(from decoder: any Decoder) throws {}
}

extension KeyedDecodingContainer {
  /// Lets an absent key decode to `@LossyList var x: [T]? = nil`.
  public func decode<T>(_ type: LossyList<T>.Type, forKey key: Key) throws -> LossyList<T> {
    try decodeIfPresent(type, forKey: key) ?? LossyList(wrappedValue: nil)
  }
}

/// An object whose presence is the information (`testPurchase: {}`, `freeTrial: {}`); its
/// contents, if any, are ignored. JSON `null` counts as absent.
public struct Marker: Sendable, Hashable, Decodable {
  public init() {}
  public init(from decoder: any Decoder) throws {}
}
