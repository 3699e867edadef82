#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The callers a service accepts, as configured: `service.callers` in the config file, or the
/// file `service.callersFile` names (the same JSON array, reloaded when it changes).
///
/// ```json
/// [{ "name": "web", "keySha256": "<64 hex digits>", "scopes": ["read", "submit"] }]
/// ```
/// Only the SHA-256 of a key is configured (`tollgate callers new` prints both).
public enum CallerList {
  public struct Entry: Codable, Sendable, Hashable {
    public var name: String
    public var keySha256: String
    public var scopes: [String]

    public init(name: String, keySha256: String, scopes: [String]) {
      self.name = name
      self.keySha256 = keySha256
      self.scopes = scopes
    }
  }

  /// A caller entry that cannot be used, named by its position and key.
  public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
  }

  /// Reads a JSON array of entries.
  public static func parse(_ data: Data, source: String) throws(Problem) -> [CallerKey] {
    let entries: [Entry]
    do {
      entries = try JSONDecoder().decode([Entry].self, from: data)
    } catch {
      throw Problem(description: "\(source) must be a JSON array of {name, keySha256, scopes}")
    }
    return try keys(entries, source: source)
  }

  /// Checks entries: names unique and non-empty, digests 64 hex digits and each caller's own (a
  /// bearer key on gRPC and HTTP finds its caller by its digest alone), scopes known and not empty.
  public static func keys(_ entries: [Entry], source: String) throws(Problem) -> [CallerKey] {
    var seen = Set<String>()
    var owners: [[UInt8]: String] = [:]
    var keys: [CallerKey] = []
    for (position, entry) in entries.enumerated() {
      let at = "\(source)[\(position)]"
      guard !entry.name.isEmpty, entry.name.utf8.count <= 128 else {
        throw Problem(description: "\(at).name must be 1 to 128 bytes")
      }
      guard seen.insert(entry.name).inserted else {
        throw Problem(description: "\(at).name \"\(entry.name)\" is configured twice")
      }
      guard let digest = hexBytes(entry.keySha256), digest.count == 32 else {
        throw Problem(description: "\(at).keySha256 must be the key's SHA-256 as 64 hex digits")
      }
      if let owner = owners.updateValue(entry.name, forKey: digest) {
        throw Problem(description: "\(at).keySha256 is also caller \"\(owner)\"'s: each caller needs its own key")
      }
      let scopes: CallerScopes
      switch CallerScopes.parse(entry.scopes) {
      case .failure(let unknown): throw Problem(description: "\(at).scopes: \(unknown)")
      case .success(let parsed): scopes = parsed
      }
      guard !scopes.isEmpty else { throw Problem(description: "\(at).scopes must name at least one scope") }
      keys.append(CallerKey(name: entry.name, keySha256: digest, scopes: scopes))
    }
    return keys
  }

  static func hexBytes(_ text: String) -> [UInt8]? {
    let digits = Array(text.utf8)
    guard digits.count.isMultiple(of: 2) else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(digits.count / 2)
    var index = 0
    while index < digits.count {
      guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
      bytes.append(high << 4 | low)
      index += 2
    }
    return bytes
  }

  private static func hexValue(_ digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
