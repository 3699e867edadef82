/// What an authenticated caller may call (docs/protocol.md, "Authentication"); which scope each
/// operation needs is `CallerOperation.requiredScope`. The members are inlinable: the fast port
/// checks `allow(.read)` once per read burst, and that check stays a couple of integer operations.
public struct CallerScopes: OptionSet, Sendable, Hashable {
  public let rawValue: UInt8

  @inlinable
  public init(rawValue: UInt8) {
    self.rawValue = rawValue
  }

  /// IsSubscriber, GetSubscription, Health.
  @inlinable public static var read: CallerScopes { CallerScopes(rawValue: 1) }
  /// SubmitPurchase, GetSubmission (its own submissions).
  @inlinable public static var submit: CallerScopes { CallerScopes(rawValue: 2) }
  /// Everything; any caller's submissions; bare App Store transaction ids in SubmitPurchase.
  @inlinable public static var admin: CallerScopes { CallerScopes(rawValue: 4) }

  @inlinable public static var all: CallerScopes { [.read, .submit, .admin] }

  /// The scopes by their configured names.
  public static let byName: [(name: String, scope: CallerScopes)] = [
    ("read", .read), ("submit", .submit), ("admin", .admin),
  ]

  /// Parses configured names; nil names the first unknown one.
  public static func parse(_ names: [String]) -> Result<CallerScopes, UnknownScope> {
    var scopes: CallerScopes = []
    for name in names {
      guard let scope = byName.first(where: { $0.name == name })?.scope else {
        return .failure(UnknownScope(name: name))
      }
      scopes.insert(scope)
    }
    return .success(scopes)
  }

  public struct UnknownScope: Error, Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var description: String { "unknown scope \"\(name)\" (known: read, submit, admin)" }
  }

  /// The names, in a fixed order.
  public var names: [String] { Self.byName.filter { contains($0.scope) }.map(\.name) }

  /// Whether these scopes allow a call that needs `needed` (admin allows everything).
  @inlinable
  public func allow(_ needed: CallerScopes) -> Bool { contains(.admin) || isSuperset(of: needed) }
}
