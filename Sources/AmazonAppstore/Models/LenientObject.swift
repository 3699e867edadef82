import Foundation

/// A JSON object read field by field, forgivingly: key case does not matter (`AutoRenewing` is
/// `autoRenewing`), `null` is absent, numbers may be strings and strings numbers. A field that is
/// present but cannot be read as asked is absent too, and its name is kept in `unreadable`, so a
/// caller can tell "Amazon did not say" from "Amazon said something we did not understand".
struct LenientObject {
  private let container: KeyedDecodingContainer<AnyKey>
  private let keys: [String: AnyKey]
  private(set) var unreadable: Set<String> = []

  init(from decoder: any Decoder) throws {
    container = try decoder.container(keyedBy: AnyKey.self)
    var keys: [String: AnyKey] = [:]
    for key in container.allKeys {
      // An exact spelling wins over another case of the same name.
      let folded = key.stringValue.lowercased()
      if keys[folded] == nil || key.stringValue == folded { keys[folded] = key }
    }
    self.keys = keys
  }

  private func key(_ name: String) -> AnyKey? {
    guard let key = keys[name.lowercased()] else { return nil }
    if (try? container.decodeNil(forKey: key)) == true { return nil }
    return key
  }

  /// Whether `name` is present and not null.
  func contains(_ name: String) -> Bool { key(name) != nil }

  mutating func string(_ name: String) -> String? {
    guard let key = key(name) else { return nil }
    if let text = try? container.decode(String.self, forKey: key) { return text }
    if let number = try? container.decode(Int64.self, forKey: key) { return String(number) }
    unreadable.insert(name)
    return nil
  }

  /// An integer written as a JSON number (integral) or a decimal string.
  mutating func int64(_ name: String) -> Int64? {
    guard let key = key(name) else { return nil }
    if let number = try? container.decode(Int64.self, forKey: key) { return number }
    if let number = try? container.decode(Double.self, forKey: key), number.rounded() == number,
      let exact = Int64(exactly: number)
    {
      return exact
    }
    if let text = try? container.decode(String.self, forKey: key),
      let number = Int64(text.trimmingCharacters(in: .whitespaces))
    {
      return number
    }
    unreadable.insert(name)
    return nil
  }

  mutating func int(_ name: String) -> Int? {
    guard let value = int64(name) else { return nil }
    guard let small = Int(exactly: value) else {
      unreadable.insert(name)
      return nil
    }
    return small
  }

  /// `true`/`false`, or the strings "true"/"false", or the numbers 1/0.
  mutating func bool(_ name: String) -> Bool? {
    guard let key = key(name) else { return nil }
    if let flag = try? container.decode(Bool.self, forKey: key) { return flag }
    if let text = try? container.decode(String.self, forKey: key) {
      switch text.lowercased() {
      case "true": return true
      case "false": return false
      default: break
      }
    }
    if let number = try? container.decode(Int.self, forKey: key), number == 0 || number == 1 { return number == 1 }
    unreadable.insert(name)
    return nil
  }

  mutating func decode<T: Decodable>(_ type: T.Type, _ name: String) -> T? {
    guard let key = key(name) else { return nil }
    if let value = try? container.decode(T.self, forKey: key) { return value }
    unreadable.insert(name)
    return nil
  }
}

/// Any key of a JSON object.
struct AnyKey: CodingKey, Hashable {
  var stringValue: String
  var intValue: Int? { nil }
  init(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { nil }
}
