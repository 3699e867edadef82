/// Who may call what, for every door: the fast port, gRPC and HTTP share one gate, so one set of
/// callers (`access`), one failed-authentication budget per source and one submission rate per
/// caller. It knows no transport: a door tells it the caller's name and key (Authenticate) or
/// the `authorization` value of a call, and the source (`PeerSource`) it came from.
public final class CallerGate: Sendable {
  public let access: CallerAccess
  /// Failed authentications per source, over every door and connection.
  public let authenticationLimiter: AuthenticationLimiter
  /// SubmitPurchase calls per caller, over every door and connection.
  public let submitLimiter: SubmitRateLimiter

  public init(access: CallerAccess, authenticationLimiter: AuthenticationLimiter, submitLimiter: SubmitRateLimiter) {
    self.access = access
    self.authenticationLimiter = authenticationLimiter
    self.submitLimiter = submitLimiter
  }

  /// The fast port's Authenticate: the caller named `name` if `key` is its key. A source out of
  /// failed authentications is refused before anything is looked up; a failure costs its source
  /// one. On a server without callers nobody authenticates (every call is `.anyone`'s): refused.
  public func authenticate(name: String, key: String, source: PeerSource) -> Result<CallerKey, CallerRefusal> {
    guard case .callers(let registry) = access else {
      return .failure(CallerRefusal(.unauthenticated, "this server has no callers: every call is allowed"))
    }
    if let blocked = blocked(source) { return .failure(blocked) }
    guard let caller = registry.authenticate(name: name, key: key) else {
      authenticationLimiter.recordFailure(source)
      return .failure(CallerRefusal(.unauthenticated, "unknown caller or wrong key"))
    }
    return .success(caller)
  }

  /// gRPC and HTTP: every call carries `authorization: Bearer <key>`. On a server without callers
  /// it is `.anyone`, whatever it sends. Otherwise a source out of failed authentications is
  /// refused before the key is looked at; a malformed or wrong key costs its source one failure
  /// (a missing one costs nothing: it asks nothing to be checked).
  public func identify(authorization: String?, source: PeerSource) -> Result<CallerIdentity, CallerRefusal> {
    guard case .callers(let registry) = access else { return .success(.anyone) }
    if let blocked = blocked(source) { return .failure(blocked) }
    guard let authorization else {
      return .failure(CallerRefusal(.unauthenticated, "no caller key: send authorization: Bearer <key>"))
    }
    guard let key = BearerToken.key(fromAuthorization: authorization),
      let caller = registry.authenticate(bearerKey: key)
    else {
      authenticationLimiter.recordFailure(source)
      return .failure(CallerRefusal(.unauthenticated, "unknown or malformed caller key"))
    }
    return .success(CallerIdentity(name: caller.name, scopes: caller.scopes))
  }

  /// Why `identity` may not ask for `operation` (`CallerOperation.requiredScope`), or nil when it may.
  public func authorize(_ identity: CallerIdentity, for operation: CallerOperation) -> CallerRefusal? {
    let needed = operation.requiredScope
    guard !identity.scopes.allow(needed) else { return nil }
    return CallerRefusal(
      .permissionDenied(needs: needed),
      "caller \(identity.name ?? "") may not call \(operation.methodName): it needs the \(needed.names.joined()) scope")
  }

  /// Takes one SubmitPurchase from `caller`'s rate (one shared rate on a server without callers);
  /// false when it has none left.
  public func admitSubmission(by caller: CallerIdentity) -> Bool { submitLimiter.admit(caller.name) }

  private func blocked(_ source: PeerSource) -> CallerRefusal? {
    let attempt = authenticationLimiter.mayAttempt(source)
    guard !attempt.allowed else { return nil }
    let seconds = Int((attempt.retryAfterMs + 999) / 1_000)
    return CallerRefusal(
      .sourceBlocked(retryAfterSeconds: seconds),
      "too many failed Authenticate calls from this address; retry in \(seconds) s")
  }
}
