/// Why a support call did nothing, in a sentence a support engineer can act on. Nothing was written.
public struct SupportError: Error, Sendable, Hashable, CustomStringConvertible {
  public enum Code: String, Sendable, Hashable {
    /// The identifier is empty, too long, or holds control characters.
    case invalidIdentifier = "invalid_identifier"
    /// A request field is out of its limits (a note over 1 KiB, ...).
    case invalidArgument = "invalid_argument"
    /// No worker has run on the database yet: there is no catalog to check an entitlement against.
    case noCatalog = "no_catalog"
    /// Tollgate holds nothing of the user (timeline, erase, re-verify).
    case unknownUser = "unknown_user"
    /// The user has no open grant of the entitlement.
    case nothingToRevoke = "nothing_to_revoke"
    /// The App Store could not be asked about an order id, and nothing stored matched.
    case orderLookupUnavailable = "order_lookup_unavailable"
  }

  public var code: Code
  public var message: String

  public init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  public var description: String { message }
}
