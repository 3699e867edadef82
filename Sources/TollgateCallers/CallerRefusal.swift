/// Why a caller's call is refused, the same for every door; each door maps the kind to its own
/// answer: `unauthenticated` to UNAUTHENTICATED (HTTP 401), `permissionDenied`
/// to PERMISSION_DENIED (403), `sourceBlocked` to RESOURCE_EXHAUSTED (429 with Retry-After).
public struct CallerRefusal: Error, Sendable, Hashable, CustomStringConvertible {
  public enum Kind: Sendable, Hashable {
    /// No key, a malformed one, a wrong one, or a caller removed or re-keyed since.
    case unauthenticated
    /// An authenticated caller without the scope the operation needs.
    case permissionDenied(needs: CallerScopes)
    /// The source used up its failed authentications (`AuthenticationLimiter`); its key was not
    /// looked at.
    case sourceBlocked(retryAfterSeconds: Int)
  }

  public var kind: Kind
  /// For the caller: names a configured caller at most, never a key or what a stranger sent.
  public var message: String

  public init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }

  public var description: String { message }
}
