import TollgateCore
import TollgateSQLite
import TollgateStorage
import TollgateWorker

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension SQLiteWorkerStorage {
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
      let existing = try db.prepare("SELECT id FROM inbox WHERE dedupe_key = ?").rows([.text(dedupeKey)]) {
        $0.int64(at: 0)
      }
      return (existing.first ?? 0, true)
    }
  }

  /// Claims up to `limit` due items (pending and due, or processing with an expired lease: a
  /// worker that died mid-item), leasing them for `leaseMs`.
  public func claimInbox(nowMs: Int64, limit: Int, leaseMs: Int64) async throws -> [InboxItem] {
    try await fencedWrite { db in
      let items = try db.prepare(
        """
        SELECT id, kind, store, user_id, payload, attempts, received_at_ms FROM inbox
        WHERE (status = 'pending' AND next_attempt_at_ms <= ?1) OR (status = 'processing' AND lease_until_ms <= ?1)
        ORDER BY next_attempt_at_ms, id LIMIT ?2
        """
      ).rows([.integer(nowMs), .integer(Int64(limit))]) { row in
        InboxItem(
          id: row.int64(at: 0), kind: InboxItem.Kind(rawValue: row.string(at: 1)) ?? .purchase,
          store: row.string(at: 2),
          userId: row.optionalString(at: 3), payload: row.blob(at: 4), attempts: Int(row.int64(at: 5)),
          receivedAtMs: row.int64(at: 6))
      }
      let lease = try db.prepare(
        "UPDATE inbox SET status = 'processing', lease_until_ms = ?, attempts = attempts + 1 WHERE id = ?")
      for item in items {
        try lease.bind([.integer(nowMs + leaseMs), .integer(item.id)])
        while try lease.step() {}
      }
      return items
    }
  }

  /// Puts an item back to be tried again at `atMs` (store trouble); nothing else changes.
  public func retryInbox(id: Int64, atMs: Int64, error: String) async throws {
    try await fencedWrite { db in
      try db.execute(
        "UPDATE inbox SET status = 'pending', next_attempt_at_ms = ?, lease_until_ms = NULL, last_error = ? WHERE id = ?",
        [.integer(atMs), .text(error), .integer(id)])
    }
  }

  /// Ends an item without a subscription change (rejected, a TEST notification, …).
  public func finishInbox(id: Int64, state: SubmissionState, outcome: String, nowMs: Int64) async throws {
    try await fencedWrite { db in
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
      for (status, count) in try db.prepare("SELECT status, COUNT(*) FROM inbox GROUP BY status").rows(
        [],
        {
          ($0.string(at: 0), Int($0.int64(at: 1)))
        })
      {
        counts[status] = count
      }
      return counts
    }
  }
}
