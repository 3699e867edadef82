/// Who makes a connection's calls: an authenticated caller, or anyone on a server without callers.
public struct CallerIdentity: Sendable, Hashable {
  /// The configured caller's name; nil on a server that runs without callers (every connection
  /// may call everything, as on a loopback-only server).
  public var name: String?
  public var scopes: CallerScopes

  public init(name: String?, scopes: CallerScopes) {
    self.name = name
    self.scopes = scopes
  }

  /// Anyone, on a server without callers.
  public static let anyone = CallerIdentity(name: nil, scopes: .all)

  /// May make claims nothing signed backs (bare transaction ids) and read any submission: an
  /// admin caller, or anyone on a server without callers.
  public var isTrusted: Bool { name == nil || scopes.contains(.admin) }
}
