#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TollgateCore

/// The worker's side of the SQLite database: the inbox, subscriptions with their verified
/// histories, grants and events. Every verification lands in one transaction together with the
/// recomputed entitlements, the change feed and the inbox item it completes.
public final class SQLiteWorkerStorage: Sendable {
  public let path: String
  let writer: SerializedConnection

  public init(path: String, nowMs: Int64) throws {
    self.path = path
    self.writer = try SerializedConnection(path: path, label: "tollgate.sqlite.worker")
    _ = try writer.readSync { db in try Schema.migrator.migrate(db, nowMs: nowMs) }
  }

  // MARK: Inbox

  /// Stores a notification durably. A second one with the same `dedupeKey` is not stored again.
  public func storeNotification(route: String, dedupeKey: String, payload: [UInt8], nowMs: Int64) async throws
    -> (id: Int64, duplicate: Bool)
  {
    try await writer.write { db in
      try db.execute(
        """
        INSERT INTO inbox (kind, store, payload, dedupe_key, received_at_ms, next_attempt_at_ms)
        VALUES ('notification', ?, ?, ?, ?, ?) ON CONFLICT(dedupe_key) DO NOTHING
        """, [.text(route), .blob(payload), .text(dedupeKey), .integer(nowMs), .integer(nowMs)])
      if db.changes == 1 { return (db.lastInsertedRowId, false) }
      let existing = try db.prepare("SELECT id FROM inbox WHERE dedupe_key = ?").rows([.text(dedupeKey)]) { $0.int64(at: 0) }
      return (existing.first ?? 0, true)
    }
  }

  /// Claims up to `limit` due items (pending and due, or processing with an expired lease: a
  /// worker that died mid-item), leasing them for `leaseMs`.
  public func claimInbox(nowMs: Int64, limit: Int, leaseMs: Int64) async throws -> [InboxItem] {
    try await writer.write { db in
      let items = try db.prepare(
        """
        SELECT id, kind, store, user_id, payload, attempts, received_at_ms FROM inbox
        WHERE (status = 'pending' AND next_attempt_at_ms <= ?1) OR (status = 'processing' AND lease_until_ms <= ?1)
        ORDER BY next_attempt_at_ms, id LIMIT ?2
        """
      ).rows([.integer(nowMs), .integer(Int64(limit))]) { row in
        InboxItem(
          id: row.int64(at: 0), kind: InboxItem.Kind(rawValue: row.string(at: 1)) ?? .purchase, store: row.string(at: 2),
          userId: row.optionalString(at: 3), payload: row.blob(at: 4), attempts: Int(row.int64(at: 5)),
          receivedAtMs: row.int64(at: 6))
      }
      let lease = try db.prepare("UPDATE inbox SET status = 'processing', lease_until_ms = ?, attempts = attempts + 1 WHERE id = ?")
      for item in items {
        try lease.bind([.integer(nowMs + leaseMs), .integer(item.id)])
        while try lease.step() {}
      }
      return items
    }
  }

  /// Puts an item back to be tried again at `atMs` (store trouble); nothing else changes.
  public func retryInbox(id: Int64, atMs: Int64, error: String) async throws {
    try await writer.write { db in
      try db.execute(
        "UPDATE inbox SET status = 'pending', next_attempt_at_ms = ?, lease_until_ms = NULL, last_error = ? WHERE id = ?",
        [.integer(atMs), .text(error), .integer(id)])
    }
  }

  /// Ends an item without a subscription change (rejected, a TEST notification, …).
  public func finishInbox(id: Int64, state: SubmissionState, outcome: String, nowMs: Int64) async throws {
    try await writer.write { db in
      try Self.finish(db, id: id, state: state, outcome: outcome, nowMs: nowMs)
    }
  }

  static func finish(_ db: Connection, id: Int64, state: SubmissionState, outcome: String, nowMs: Int64) throws {
    try db.execute(
      "UPDATE inbox SET status = ?, outcome = ?, completed_at_ms = ?, lease_until_ms = NULL WHERE id = ?",
      [.text(state.rawValue), .text(outcome), .integer(nowMs), .integer(id)])
  }

  /// Counts of inbox items by status (for Health and metrics).
  public func inboxCounts() async throws -> [String: Int] {
    try await writer.read { db in
      var counts: [String: Int] = [:]
      for (status, count) in try db.prepare("SELECT status, COUNT(*) FROM inbox GROUP BY status").rows([], {
        ($0.string(at: 0), Int($0.int64(at: 1)))
      }) {
        counts[status] = count
      }
      return counts
    }
  }

  // MARK: Subscriptions

  public func subscription(store: Store, purchaseId: String) async throws -> StoredSubscription? {
    try await writer.read { db in
      try Self.subscriptions(db, where: "store = ? AND store_subscription_id = ?", [.text(store.rawValue), .text(purchaseId)]).first
    }
  }

  public func subscriptions(userId: String) async throws -> [StoredSubscription] {
    try await writer.read { db in try Self.subscriptions(db, where: "user_id = ?", [.text(userId)]) }
  }

  /// Subscriptions due for verification, oldest due first.
  public func dueSubscriptions(nowMs: Int64, limit: Int) async throws -> [StoredSubscription] {
    try await writer.read { db in
      try Self.subscriptions(
        db, where: "next_check_at_ms IS NOT NULL AND next_check_at_ms <= ? ORDER BY next_check_at_ms LIMIT ?",
        [.integer(nowMs), .integer(Int64(limit))])
    }
  }

  /// After a failed store call: try again at `untilMs`; the verified state stays as it is.
  public func postponeCheck(store: Store, purchaseId: String, untilMs: Int64, failures: Int) async throws {
    try await writer.write { db in
      try db.execute(
        "UPDATE subscriptions SET next_check_at_ms = ?, failures = ? WHERE store = ? AND store_subscription_id = ?",
        [.integer(untilMs), .integer(Int64(failures)), .text(store.rawValue), .text(purchaseId)])
    }
  }

  /// Makes every subscription of `userId` due now; returns how many.
  public func requestReverify(userId: String, nowMs: Int64) async throws -> Int {
    try await writer.write { db in
      try db.execute("UPDATE subscriptions SET next_check_at_ms = ? WHERE user_id = ?", [.integer(nowMs), .text(userId)])
      return db.changes
    }
  }

  // MARK: Grants

  public func grants(userId: String) async throws -> [PromotionalGrant] {
    try await writer.read { db in try Self.grants(db, userId: userId) }
  }

  /// Adds a grant and recomputes the user's entitlements in the same transaction.
  public func addGrant(
    userId: String, entitlement: String, expiresAtMs: Int64, note: String?, nowMs: Int64, recompute: @escaping EntitlementRecompute
  ) async throws -> Int64 {
    try await writer.write { db in
      try db.execute(
        "INSERT INTO grants (user_id, entitlement, granted_at_ms, expires_at_ms, note) VALUES (?, ?, ?, ?, ?)",
        [.text(userId), .text(entitlement), .integer(nowMs), .integer(expiresAtMs), DatabaseValue(note)])
      let id = db.lastInsertedRowId
      _ = try Self.recompute(db, userId: userId, reason: "grant", nowMs: nowMs, recompute: recompute)
      return id
    }
  }

  /// Revokes the user's open grants of `entitlement`; returns how many.
  public func revokeGrants(userId: String, entitlement: String, nowMs: Int64, recompute: @escaping EntitlementRecompute)
    async throws -> Int
  {
    try await writer.write { db in
      try db.execute(
        "UPDATE grants SET revoked_at_ms = ? WHERE user_id = ? AND entitlement = ? AND revoked_at_ms IS NULL",
        [.integer(nowMs), .text(userId), .text(entitlement)])
      let count = db.changes
      _ = try Self.recompute(db, userId: userId, reason: "grant_revoked", nowMs: nowMs, recompute: recompute)
      return count
    }
  }

  // MARK: Events

  public func events(userId: String) async throws -> [WorkerEvent] {
    try await writer.read { db in
      try db.prepare(
        "SELECT user_id, kind, store, store_subscription_id, product_id, state, at_ms, detail FROM events WHERE user_id = ? ORDER BY id"
      ).rows([.text(userId)]) { row in
        WorkerEvent(
          userId: row.optionalString(at: 0), kind: row.string(at: 1), store: Store(rawValue: row.string(at: 2)) ?? .appStore,
          purchaseId: row.string(at: 3), productId: row.optionalString(at: 4),
          state: row.optionalString(at: 5).flatMap(SubscriptionState.init(rawValue:)), atMs: row.int64(at: 6),
          detail: row.optionalString(at: 7))
      }
    }
  }
}
