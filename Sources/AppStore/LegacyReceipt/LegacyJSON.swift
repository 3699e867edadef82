import Foundation
import TollgateCore

/// Loose access to legacy (verifyReceipt, V1 notification) JSON, where Apple writes numbers as
/// strings, booleans as "true"/"1", and dates as ms, as strings, or both.
struct LegacyJSON {
  var object: [String: Any]

  init(_ object: [String: Any]) { self.object = object }

  init?(data: Data) {
    guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return nil }
    self.object = object
  }

  func string(_ key: String) -> String? {
    switch object[key] {
    case let value as String: return value
    case let value as NSNumber: return value.stringValue
    default: return nil
    }
  }

  func int64(_ key: String) -> Int64? {
    switch object[key] {
    case let value as String: return Int64(value)
    case let value as NSNumber: return value.int64Value
    default: return nil
    }
  }

  func bool(_ key: String) -> Bool? {
    switch object[key] {
    case let value as String:
      return value == "true" || value == "1" ? true : value == "false" || value == "0" ? false : nil
    case let value as NSNumber: return value.boolValue
    default: return nil
    }
  }

  func child(_ key: String) -> LegacyJSON? { (object[key] as? [String: Any]).map(LegacyJSON.init) }

  /// An array of objects, or a single object as a one-element array (iOS 6 responses).
  func children(_ key: String) -> [LegacyJSON]? {
    if let array = object[key] as? [Any] { return array.compactMap { ($0 as? [String: Any]).map(LegacyJSON.init) } }
    return child(key).map { [$0] }
  }

  /// `<key>_ms` first; then `<key>` as ms digits (iOS 6 `expires_date`) or as a
  /// "yyyy-MM-dd HH:mm:ss Etc/GMT" string.
  func milliseconds(_ key: String) -> Int64? {
    if let ms = int64(key + "_ms") { return ms }
    guard let value = string(key) else { return nil }
    if let ms = Int64(value) { return ms }
    return Self.parseGMT(value)
  }

  /// Parses "2017-07-24 08:13:24 Etc/GMT" (or "… GMT", or ISO 8601 "2017-07-24T08:13:24Z").
  static func parseGMT(_ text: String) -> Int64? {
    let digits = text.split(whereSeparator: { !$0.isNumber }).compactMap { Int64($0) }
    let zone = text.split(separator: " ").dropFirst(2).first.map(String.init) ?? "Z"
    guard digits.count >= 6, ["Etc/GMT", "GMT", "UTC", "Z"].contains(zone) || text.hasSuffix("Z") else { return nil }
    let (year, month, day) = (digits[0], digits[1], digits[2])
    guard (1...12).contains(month), (1...31).contains(day), digits[3] < 24, digits[4] < 60, digits[5] < 61 else {
      return nil
    }
    let days = CivilDate(year: year, month: month, day: day).daysSinceEpoch
    return ((days * 24 + digits[3]) * 60 + digits[4]) * 60_000 + digits[5] * 1000
  }
}
