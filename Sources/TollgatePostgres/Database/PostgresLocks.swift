/// The advisory-lock keys Tollgate takes on PostgreSQL (`pg_advisory_lock` and
/// `pg_advisory_xact_lock` take one `bigint`). Each is a constant of this file, so that no two
/// jobs share one by accident.
public enum PostgresLocks {
  /// Held for the session while a process checks and applies migrations at open.
  public static let migrations: Int64 = 0x546f_6c6c_0001
  /// Taken (transaction-scoped) before the first change-feed append of a transaction: appends
  /// are serialised, so sequence numbers become visible in commit order (the contract of
  /// `EntitlementStorage.changes(after:limit:)`).
  public static let changeFeed: Int64 = 0x546f_6c6c_0002
  /// Taken (transaction-scoped) before the first worker-event append of a transaction: event ids
  /// become visible in commit order (`WorkerStorage.events(after:limit:)`).
  public static let events: Int64 = 0x546f_6c6c_0003
  /// The first key of the two-key form `pg_advisory_xact_lock(int4, int4)` (a key space apart
  /// from the one-key locks above), the second a hash of a submission's caller and user: taken
  /// by `submitPurchase` before it counts that caller's pending submissions for that user and
  /// stores one, so two processes never both admit the last allowed one.
  public static let submissionAdmission: Int32 = 0x546f_6c6c
}
