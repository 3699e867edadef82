import TollgateCrypto

/// A configured caller: its name, the SHA-256 of its secret key (the key itself is never stored)
/// and its scopes.
public struct CallerKey: Sendable, Hashable {
  public var name: String
  public var keySha256: [UInt8]
  public var scopes: CallerScopes

  public init(name: String, keySha256: [UInt8], scopes: CallerScopes) {
    self.name = name
    self.keySha256 = keySha256
    self.scopes = scopes
  }

  /// The digest a key is stored as.
  public static func digest(of key: String) -> [UInt8] { SHA256.hash(key) }

  /// Whether `key` is this caller's, compared in time independent of where it differs.
  package func matches(key: String) -> Bool { HMACSHA256.isEqual(Self.digest(of: key), keySha256) }
}
