/// What a GDPR erase removed of one user (`WorkerStorage.eraseUser`), or would remove (a dry run).
public struct ErasureCounts: Sendable, Hashable {
  /// Chains bound to the user, now bound to nobody (their `erasedAtMs` set).
  public var subscriptionsUnbound: Int
  /// Chains bound to others or nobody whose app account token named the user, the token cleared.
  public var appAccountTokensCleared: Int
  /// The user's promotional grants, deleted.
  public var grants: Int
  /// The user's events, deleted (the newest event of the table is scrubbed in place instead).
  public var events: Int
  /// Other users' events whose text named the user, the name replaced.
  public var eventsScrubbed: Int
  /// The user's submitted purchases (every status), deleted.
  public var submissions: Int
  /// The user's entitlement records, deleted.
  public var entitlementRecords: Int
  /// Whether the user's row was there (and deleted).
  public var userRow: Bool

  public init(
    subscriptionsUnbound: Int = 0, appAccountTokensCleared: Int = 0, grants: Int = 0, events: Int = 0,
    eventsScrubbed: Int = 0, submissions: Int = 0, entitlementRecords: Int = 0, userRow: Bool = false
  ) {
    self.subscriptionsUnbound = subscriptionsUnbound
    self.appAccountTokensCleared = appAccountTokensCleared
    self.grants = grants
    self.events = events
    self.eventsScrubbed = eventsScrubbed
    self.submissions = submissions
    self.entitlementRecords = entitlementRecords
    self.userRow = userRow
  }

  /// Nothing of the user was there.
  public var isEmpty: Bool { self == ErasureCounts() }
}
