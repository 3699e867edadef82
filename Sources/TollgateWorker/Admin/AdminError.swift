import TollgateCore

/// Why an admin command refused to act, in words an operator can act on. Nothing was written.
public enum AdminError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The user id is empty or too long (`UserIdLimits`, the service's own limits).
  case invalidUserId(String)
  /// The catalog names no such entitlement: a grant of it would answer nothing any app asks.
  case unknownEntitlement(String, known: [String])
  /// A grant must end after now (by the deployment's clock).
  case untilNotInFuture(untilMs: Int64, nowMs: Int64)

  public var description: String {
    switch self {
    case .invalidUserId(let problem): problem
    case .unknownEntitlement(let name, let known):
      "the catalog has no entitlement \(Self.quoted(name)); it names: \(known.isEmpty ? "none" : known.joined(separator: ", "))"
    case .untilNotInFuture(let until, let now):
      "--until \(until) is not after now (\(now) by the deployment's clock): the grant would already be over"
    }
  }

  /// A name from the command line, escaped and truncated.
  static func quoted(_ value: String) -> String {
    "\"\(StrangerText.loggable(value))\""
  }

  /// Checks a user id against the service's limits.
  static func check(userId: String) throws(AdminError) {
    if let problem = UserIdLimits.problem(userId) { throw .invalidUserId(problem) }
  }
}
