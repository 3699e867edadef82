import Logging
import PostgresNIO
import TollgateCore
import TollgateStorage

/// The one place that writes users' entitlement records and the change feed on PostgreSQL, inside
/// a transaction its caller opened (`PostgresTollgateDatabase.transaction`): the service's
/// `replaceEntitlements` and the worker's apply and grants use it alike, as SQLite's
/// `EntitlementWriter` is used by both.
///
/// **Feed order.** A transaction that appends to `change_feed` must call `lockFeed` as its FIRST
/// statement, before it reads or locks any row (then `PostgresLocks.events`, if it also appends
/// events). The lock is transaction-scoped: appends are serialised and released only once the
/// transaction's commit is visible, so sequence numbers become visible in the order they were
/// handed out and a follower of `changes(after:)` never skips one (the contract of
/// `EntitlementStorage.changes(after:limit:)`). Taking it first, before any row lock, is what
/// keeps two writers from deadlocking. `replace` takes the same lock again right before its
/// append (a no-op when it is held: advisory locks are re-entrant), so a caller that forgot can
/// deadlock but never hand out a number out of order.
///
/// **Wake-up.** `replace` sends `NOTIFY tollgate_changes` in the same transaction: PostgreSQL
/// delivers it to every listening replica at commit (and drops it on rollback), once per
/// transaction however many users it wrote (identical notifications are folded).
public enum PostgresEntitlementWriter {
  /// The `LISTEN`/`NOTIFY` channel every replica listens on (`PostgresEntitlementStorage.changeSignals`).
  public static let notificationChannel = "tollgate_changes"

  /// Takes the change-feed order lock (`pg_advisory_xact_lock(PostgresLocks.changeFeed)`) for the
  /// rest of the caller's transaction. Run it as the transaction's first statement.
  public static func lockFeed(_ connection: PostgresSession, logger: Logger) async throws {
    try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresLocks.changeFeed))", logger: logger)
  }

  /// The records of `userId` as the caller's transaction sees them, in key order.
  public static func records(_ connection: PostgresSession, userId: String, logger: Logger) async throws
    -> [EntitlementRecord]
  {
    var records: [EntitlementRecord] = []
    let rows = try await connection.query(
      """
      SELECT \(unescaped: EntitlementRecordRow.columns) FROM entitlements WHERE user_id = \(userId)
      ORDER BY entitlement, source
      """, logger: logger)
    for try await row in rows { records.append(try EntitlementRecordRow.record(row)) }
    return records
  }

  /// Replaces every record of `userId` with `records`, appends the change to the feed and
  /// notifies the listeners, in the caller's transaction (which has called `lockFeed` first).
  /// Returns the change-feed sequence number of the write.
  @discardableResult
  public static func replace(
    _ connection: PostgresSession, userId: String, records: [EntitlementRecord], reason: String, nowMs: Int64,
    logger: Logger
  ) async throws -> Int64 {
    precondition(records.allSatisfy { $0.userId == userId }, "records of another user")
    try await connection.query(
      """
      WITH known AS (
        INSERT INTO users (user_id, created_at_ms) VALUES (\(userId), \(nowMs)) ON CONFLICT (user_id) DO NOTHING)
      DELETE FROM entitlements WHERE user_id = \(userId)
      """, logger: logger)
    if !records.isEmpty {
      try await connection.query(EntitlementRecordRow.insert(records), logger: logger)
    }
    let seqs = try await append(connection, userIds: [userId], reason: reason, nowMs: nowMs, logger: logger)
    guard let seq = seqs.last else { throw PostgresStorageError.undecodable("change_feed append returned no seq") }
    return seq
  }

  /// Replaces the records of many users in the caller's transaction (which has called `lockFeed`
  /// first), one change-feed entry per element in order, a few statements per 1,000 users.
  /// A user named twice ends with the records of its last element, as if written one by one.
  /// Returns the last sequence number, 0 for an empty batch.
  @discardableResult
  public static func replace(
    _ connection: PostgresSession, batch: [(userId: String, records: [EntitlementRecord])], reason: String,
    nowMs: Int64, logger: Logger
  ) async throws -> Int64 {
    var last: Int64 = 0
    var start = 0
    while start < batch.count {
      let chunk = batch[start..<min(batch.count, start + 1_000)]
      start += chunk.count
      var latest: [String: [EntitlementRecord]] = [:]
      var order: [String] = []
      for (userId, records) in chunk {
        precondition(records.allSatisfy { $0.userId == userId }, "records of another user")
        if latest.updateValue(records, forKey: userId) == nil { order.append(userId) }
      }
      let createdAt = Array(repeating: nowMs, count: order.count)
      try await connection.query(
        """
        WITH known AS (
          INSERT INTO users (user_id, created_at_ms) SELECT * FROM UNNEST(\(order)::text[], \(createdAt)::bigint[])
          ON CONFLICT (user_id) DO NOTHING)
        DELETE FROM entitlements WHERE user_id = ANY(\(order)::text[])
        """, logger: logger)
      let records = order.flatMap { latest[$0] ?? [] }
      if !records.isEmpty {
        try await connection.query(EntitlementRecordRow.insert(records), logger: logger)
      }
      let seqs = try await append(
        connection, userIds: chunk.map(\.userId), reason: reason, nowMs: nowMs, logger: logger)
      last = seqs.max() ?? last
    }
    return last
  }

  /// Appends one entry per user, in order, under the feed lock (taken again: see the type's
  /// comment), and notifies the listeners at commit. The lock and the notification are computed
  /// once, in a subquery the planner keeps as it is (volatile functions are never pulled up or
  /// dropped), before the first `seq` is drawn.
  private static func append(
    _ connection: PostgresSession, userIds: [String], reason: String, nowMs: Int64, logger: Logger
  ) async throws -> [Int64] {
    let rows = try await connection.query(
      """
      INSERT INTO change_feed (user_id, reason, at_ms)
      SELECT appended.user_id, \(reason), \(nowMs)
      FROM (SELECT pg_advisory_xact_lock(\(PostgresLocks.changeFeed)),
              pg_notify(\(notificationChannel), '')) AS ordered,
        UNNEST(\(userIds)::text[]) WITH ORDINALITY AS appended(user_id, position)
      ORDER BY appended.position
      RETURNING seq
      """, logger: logger)
    var seqs: [Int64] = []
    for try await seq in rows.decode(Int64.self) { seqs.append(seq) }
    return seqs
  }
}
