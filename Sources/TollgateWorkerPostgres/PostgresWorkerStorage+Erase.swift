import Logging
import PostgresNIO
import TollgateCore
import TollgatePostgres
import TollgateWorker

/// The GDPR erase (`WorkerStorage.eraseUser`) in one transaction that takes the change-feed and
/// events locks first (`fencedTransaction(appendsToFeeds:)`), as every `apply` and grant does:
/// no write of the user's chains or grants interleaves with it. The counts of a real erase are
/// what its statements changed; a dry run counts the same rows under the same locks and writes
/// nothing (the transaction commits no change).
extension PostgresWorkerStorage {
  public func eraseUser(_ userId: String, dryRun: Bool, nowMs: Int64) async throws -> ErasureCounts {
    try await fencedTransaction(appendsToFeeds: true) { connection in
      if dryRun { return try await Self.erasureCounts(connection, userId, logger: logger) }
      return try await Self.erase(connection, userId, nowMs: nowMs, logger: logger)
    }
  }

  private static func erase(_ connection: PostgresSession, _ userId: String, nowMs: Int64, logger: Logger)
    async throws -> ErasureCounts
  {
    func changed(_ query: PostgresQuery) async throws -> Int {
      try await connection.query(query, logger: logger).collect().count
    }
    let lowered = userId.lowercased()
    var counts = ErasureCounts()
    let hadUserRow = try await changed("SELECT 1 FROM users WHERE user_id = \(userId)") > 0
    counts.entitlementRecords = try await changed("SELECT 1 FROM entitlements WHERE user_id = \(userId)")
    // 1. The chains stay, bound to nobody; version + 1 fails an apply computed before.
    counts.subscriptionsUnbound = try await changed(
      """
      UPDATE subscriptions SET user_id = NULL, app_account_token = NULL, store_user_id = NULL,
        next_check_at_ms = NULL, check_token = NULL, erased_at_ms = \(nowMs), version = version + 1,
        updated_at_ms = \(nowMs)
      WHERE user_id = \(userId) RETURNING 1
      """)
    counts.appAccountTokensCleared = try await changed(
      "UPDATE subscriptions SET app_account_token = NULL WHERE app_account_token IN (\(userId), \(lowered)) RETURNING 1"
    )
    // 2. Grants.
    counts.grants = try await changed("DELETE FROM grants WHERE user_id = \(userId) RETURNING 1")
    // 3. Events: parked deliveries first; the newest event is scrubbed in place, as on SQLite.
    try await connection.query(
      "DELETE FROM webhook_parked WHERE event_id IN (SELECT id FROM events WHERE user_id = \(userId))",
      logger: logger)
    counts.events = try await changed(
      """
      UPDATE events SET user_id = NULL, store_subscription_id = '', product_id = NULL, state = NULL,
        detail = NULL, details_json = NULL, kind = \(ErasureText.placeholderKind)
      WHERE id = (SELECT MAX(id) FROM events) AND user_id = \(userId) RETURNING 1
      """)
    counts.events += try await changed("DELETE FROM events WHERE user_id = \(userId) RETURNING 1")
    // 4. Other users' claim and transfer events that name the user (`events_claims`).
    for (prefix, replacement) in ErasureText.prefixes(naming: userId) {
      counts.eventsScrubbed += try await changed(
        """
        UPDATE events SET detail = \(replacement) || substr(detail, length(\(prefix)) + 1)
        WHERE kind IN ('transferred', 'transfer_refused', 'claim_refused')
          AND substr(detail, 1, length(\(prefix))) = \(prefix)
        RETURNING 1
        """)
    }
    // 5. Submissions of every status (a claim of one in flight then fails with claimLost).
    counts.submissions = try await changed(
      "DELETE FROM inbox WHERE kind = 'purchase' AND user_id = \(userId) RETURNING 1")
    // 6. Entitlements, with one change-feed entry that drops the user on every replica (only
    //    when the user was known: an unknown id is not written to the feed).
    if hadUserRow {
      try await PostgresEntitlementWriter.replace(
        connection, userId: userId, records: [], reason: ErasureText.feedReason, nowMs: nowMs, logger: logger)
    }
    // 7. The user row last (subscriptions and grants referred to it).
    try await connection.query("DELETE FROM users WHERE user_id = \(userId)", logger: logger)
    return counts
  }

  /// What an erase of `userId` would remove, read under the erase's locks.
  private static func erasureCounts(_ connection: PostgresSession, _ userId: String, logger: Logger)
    async throws -> ErasureCounts
  {
    func count(_ query: PostgresQuery) async throws -> Int {
      Int(try await connection.query(query, logger: logger).collect().first?.decode(Int64.self) ?? 0)
    }
    let lowered = userId.lowercased()
    var counts = ErasureCounts()
    counts.subscriptionsUnbound = try await count("SELECT COUNT(*) FROM subscriptions WHERE user_id = \(userId)")
    counts.appAccountTokensCleared = try await count(
      """
      SELECT COUNT(*) FROM subscriptions
      WHERE app_account_token IN (\(userId), \(lowered)) AND user_id IS DISTINCT FROM \(userId)
      """)
    counts.grants = try await count("SELECT COUNT(*) FROM grants WHERE user_id = \(userId)")
    counts.events = try await count("SELECT COUNT(*) FROM events WHERE user_id = \(userId)")
    for (prefix, _) in ErasureText.prefixes(naming: userId) {
      counts.eventsScrubbed += try await count(
        """
        SELECT COUNT(*) FROM events
        WHERE kind IN ('transferred', 'transfer_refused', 'claim_refused')
          AND substr(detail, 1, length(\(prefix))) = \(prefix) AND user_id IS DISTINCT FROM \(userId)
        """)
    }
    counts.submissions = try await count(
      "SELECT COUNT(*) FROM inbox WHERE kind = 'purchase' AND user_id = \(userId)")
    counts.entitlementRecords = try await count("SELECT COUNT(*) FROM entitlements WHERE user_id = \(userId)")
    return counts
  }
}
