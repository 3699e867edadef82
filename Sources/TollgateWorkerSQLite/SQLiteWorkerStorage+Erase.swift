import TollgateCore
import TollgateSQLite
import TollgateStorage
import TollgateWorker

/// The GDPR erase (`WorkerStorage.eraseUser`): one write transaction (`BEGIN IMMEDIATE`, fenced
/// like every write when this storage holds the worker lease), so SQLite's single writer
/// serialises it with every `apply`, grant and claim of the database; the dry run counts in
/// that same transaction and writes nothing.
extension SQLiteWorkerStorage {
  public func eraseUser(_ userId: String, dryRun: Bool, nowMs: Int64) async throws -> ErasureCounts {
    try await fencedWrite { db in
      let counts = try Self.erasureCounts(db, userId)
      let hadUserRow = try Self.count(db, "SELECT COUNT(*) FROM users WHERE user_id = ?", [.text(userId)]) > 0
      if dryRun { return counts }
      let user = DatabaseValue.text(userId)
      let tokens: [DatabaseValue] = [user, .text(userId.lowercased())]
      // 1. The chains stay, bound to nobody; version + 1 fails an apply computed before.
      try db.execute(
        """
        UPDATE subscriptions SET user_id = NULL, app_account_token = NULL, store_user_id = NULL,
          next_check_at_ms = NULL, check_token = NULL, erased_at_ms = ?, version = version + 1, updated_at_ms = ?
        WHERE user_id = ?
        """, [.integer(nowMs), .integer(nowMs), user])
      try db.execute("UPDATE subscriptions SET app_account_token = NULL WHERE app_account_token IN (?, ?)", tokens)
      // 2. Grants.
      try db.execute("DELETE FROM grants WHERE user_id = ?", [user])
      // 3. Events: parked deliveries first; the newest event is scrubbed in place (a deleted
      //    newest rowid would be handed out again, below a webhook cursor).
      try db.execute(
        "DELETE FROM webhook_parked WHERE event_id IN (SELECT id FROM events WHERE user_id = ?)", [user])
      try db.execute(
        """
        UPDATE events SET user_id = NULL, store_subscription_id = '', product_id = NULL, state = NULL,
          detail = NULL, details_json = NULL, kind = ?
        WHERE id = (SELECT MAX(id) FROM events) AND user_id = ?
        """, [.text(ErasureText.placeholderKind), user])
      try db.execute("DELETE FROM events WHERE user_id = ?", [user])
      // 4. Other users' claim and transfer events that name the user (`events_claims`).
      for (prefix, replacement) in ErasureText.prefixes(naming: userId) {
        try db.execute(
          "UPDATE events SET detail = ? || substr(detail, length(?) + 1) WHERE \(Self.claimEventsNaming)",
          [.text(replacement), .text(prefix), .text(prefix), .text(prefix)])
      }
      // 5. Submissions of every status (a claim of one in flight then fails with claimLost).
      try db.execute("DELETE FROM inbox WHERE kind = 'purchase' AND user_id = ?", [user])
      // 6. Entitlements, with one change-feed entry that drops the user on every replica (only
      //    when the user was known: an unknown id is not written to the feed).
      if hadUserRow {
        _ = try db.replaceEntitlementRecords(userId: userId, records: [], reason: ErasureText.feedReason, nowMs: nowMs)
      }
      // 7. The user row last (subscriptions and grants referred to it).
      try db.execute("DELETE FROM users WHERE user_id = ?", [user])
      return counts
    }
  }

  /// The claim and transfer events whose detail starts with the bound prefix (bound twice more).
  static let claimEventsNaming = """
    kind IN ('transferred', 'transfer_refused', 'claim_refused') AND substr(detail, 1, length(?)) = ?
    """

  /// What an erase of `userId` removes, read in the erase's own transaction.
  static func erasureCounts(_ db: Connection, _ userId: String) throws -> ErasureCounts {
    let user = DatabaseValue.text(userId)
    var counts = ErasureCounts()
    counts.subscriptionsUnbound = try count(db, "SELECT COUNT(*) FROM subscriptions WHERE user_id = ?", [user])
    counts.appAccountTokensCleared = try count(
      db,
      """
      SELECT COUNT(*) FROM subscriptions WHERE app_account_token IN (?, ?) AND (user_id IS NULL OR user_id <> ?)
      """, [user, .text(userId.lowercased()), user])
    counts.grants = try count(db, "SELECT COUNT(*) FROM grants WHERE user_id = ?", [user])
    counts.events = try count(db, "SELECT COUNT(*) FROM events WHERE user_id = ?", [user])
    for (prefix, _) in ErasureText.prefixes(naming: userId) {
      counts.eventsScrubbed += try count(
        db, "SELECT COUNT(*) FROM events WHERE \(claimEventsNaming) AND (user_id IS NULL OR user_id <> ?)",
        [.text(prefix), .text(prefix), user])
    }
    counts.submissions = try count(
      db, "SELECT COUNT(*) FROM inbox WHERE kind = 'purchase' AND user_id = ?", [user])
    counts.entitlementRecords = try count(db, "SELECT COUNT(*) FROM entitlements WHERE user_id = ?", [user])
    return counts
  }

  static func count(_ db: Connection, _ sql: String, _ arguments: [DatabaseValue]) throws -> Int {
    Int(try db.prepare(sql).rows(arguments) { $0.int64(at: 0) }.first ?? 0)
  }
}
