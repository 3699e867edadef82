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
  public func storeNotification(
    route: String, dedupeKey: String, payload: [UInt8], requestId: String?, nowMs: Int64
  ) async throws -> (id: Int64, duplicate: Bool) {
    try await writer.write { db in
      try db.execute(
        """
        INSERT INTO inbox (kind, store, payload, dedupe_key, received_at_ms, next_attempt_at_ms, request_id)
        VALUES ('notification', ?, ?, ?, ?, ?, ?) ON CONFLICT(dedupe_key) DO NOTHING
        """,
        [.text(route), .blob(payload), .text(dedupeKey), .integer(nowMs), .integer(nowMs), DatabaseValue(requestId)])
      if db.changes == 1 { return (db.lastInsertedRowId, false) }
      let existing = try db.prepare("SELECT id FROM inbox WHERE dedupe_key = ?").rows([.text(dedupeKey)]) {
        $0.int64(at: 0)
      }
      return (existing.first ?? 0, true)
    }
  }

  /// Claims up to `limit` due items (pending and due, or processing with an expired lease: a
  /// worker that died mid-item), leasing them for `leaseMs`, each under a new random nonzero
  /// fencing token. Atomic with several processes on the database: the transaction is `BEGIN
  /// IMMEDIATE` (SQLite's one writer), and each item's UPDATE is itself conditional on the item
  /// still being claimable, so the claim never depends on the SELECT before it.
  public func claimInbox(nowMs: Int64, limit: Int, leaseMs: Int64, excluding: Set<Int64> = []) async throws
    -> [InboxItem]
  {
    try await fencedWrite { db in
      // Ids first, payloads only of the items claimed: the worker claims one or two at a time
      // with a dozen of its own in flight, and reading every candidate's payload (an Apple
      // notification is kilobytes) made this the SQLite queue's largest cost.
      let candidates = try db.prepare(
        "SELECT id FROM inbox WHERE \(Self.claimable) ORDER BY next_attempt_at_ms, id LIMIT ?2"
      ).rows([.integer(nowMs), .integer(Int64(limit + excluding.count))]) { $0.int64(at: 0) }
      let lease = try db.prepare(
        """
        UPDATE inbox SET status = 'processing', lease_until_ms = ?2, attempts = attempts + 1, claim_token = ?3
        WHERE id = ?4 AND (\(Self.claimable))
        """)
      // After the lease: the attempts before it, as the item was claimed.
      let read = try db.prepare(
        "SELECT kind, store, user_id, payload, attempts - 1, received_at_ms, request_id FROM inbox WHERE id = ?")
      var claimed: [InboxItem] = []
      for id in candidates.filter({ !excluding.contains($0) }).prefix(limit) {
        let claimToken = Self.newClaimToken()
        try lease.bind([.integer(nowMs), .integer(nowMs + leaseMs), .integer(claimToken), .integer(id)])
        while try lease.step() {}
        guard db.changes == 1 else { continue }
        let items = try read.rows([.integer(id)]) { row in
          InboxItem(
            id: id, kind: InboxItem.Kind(rawValue: row.string(at: 0)) ?? .purchase, store: row.string(at: 1),
            userId: row.optionalString(at: 2), payload: row.blob(at: 3), attempts: Int(row.int64(at: 4)),
            receivedAtMs: row.int64(at: 5), requestId: row.optionalString(at: 6))
        }
        guard var item = items.first else { continue }
        item.claimToken = claimToken
        claimed.append(item)
      }
      return claimed
    }
  }

  /// Which items a claim at `?1` (now) may take.
  static let claimable =
    "(status = 'pending' AND next_attempt_at_ms <= ?1) OR (status = 'processing' AND lease_until_ms <= ?1)"

  /// A new fencing token: random, nonzero (0 means "not claimed").
  static func newClaimToken() -> Int64 { Int64.random(in: 1...Int64.max) }

  /// Extends the leases of `claims` still current (their token is the item's, still processing).
  public func renewInboxClaims(_ claims: [InboxClaim], untilMs: Int64) async throws -> Int {
    guard !claims.isEmpty else { return 0 }
    return try await fencedWrite { db in
      var renewed = 0
      for claim in claims {
        try db.execute(
          "UPDATE inbox SET lease_until_ms = ? WHERE id = ? AND status = 'processing' AND claim_token = ?",
          [.integer(untilMs), .integer(claim.id), .integer(claim.claimToken)])
        renewed += db.changes
      }
      return renewed
    }
  }

  /// Puts an item back to be tried again at `atMs` (store trouble), ending its claim; nothing
  /// else changes. `StorageConflict` (`.claimLost`) when the claim is not the item's current one.
  public func retryInbox(id: Int64, claimToken: Int64, atMs: Int64, error: String) async throws {
    try await fencedWrite { db in
      try db.execute(
        """
        UPDATE inbox SET status = 'pending', next_attempt_at_ms = ?, lease_until_ms = NULL, last_error = ?,
          claim_token = 0
        WHERE id = ? AND status = 'processing' AND claim_token = ?
        """,
        [.integer(atMs), .text(error), .integer(id), .integer(claimToken)])
      if db.changes != 1 { throw try Self.claimLost(db, id: id, doing: "retried") }
    }
  }

  /// Ends an item without a subscription change (rejected, a TEST notification, …).
  /// `StorageConflict` (`.claimLost`) when the claim is not the item's current one.
  public func finishInbox(id: Int64, claimToken: Int64, state: SubmissionState, outcome: String, nowMs: Int64)
    async throws
  {
    try await fencedWrite { db in
      try Self.finish(
        db, InboxCompletion(id: id, claimToken: claimToken, state: state, outcome: outcome), nowMs: nowMs)
    }
  }

  /// Ends the claimed item `completion` names, inside the caller's transaction; throws
  /// `StorageConflict` (`.claimLost`) when that claim is not the item's current one, so the
  /// caller's transaction rolls back and nothing it wrote lands.
  static func finish(_ db: Connection, _ completion: InboxCompletion, nowMs: Int64) throws {
    try db.execute(
      """
      UPDATE inbox SET status = ?, outcome = ?, completed_at_ms = ?, lease_until_ms = NULL, claim_token = 0
      WHERE id = ? AND status = 'processing' AND claim_token = ?
      """,
      [
        .text(completion.state.rawValue), .text(completion.outcome), .integer(nowMs), .integer(completion.id),
        .integer(completion.claimToken),
      ])
    if db.changes != 1 { throw try claimLost(db, id: completion.id, doing: "finished") }
  }

  /// The refusal of a write under a claim that is no longer the item's current one, saying why.
  static func claimLost(_ db: Connection, id: Int64, doing: String) throws -> StorageConflict {
    let status = try db.prepare("SELECT status FROM inbox WHERE id = ?").rows([.integer(id)]) { $0.string(at: 0) }
      .first
    let why =
      switch status {
      case nil: "it is no longer in the inbox"
      case "processing"?: "another claim holds it now"
      case let status?: "its claim already ended (it is \(status))"
      }
    return StorageConflict(.claimLost, "inbox item \(id) was not \(doing) under this claim: \(why)")
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

  public func oldestUnfinishedInboxItemAtMs() async throws -> Int64? {
    try await writer.read { db in
      try db.prepare("SELECT MIN(received_at_ms) FROM inbox WHERE status IN ('pending', 'processing')").rows(
        [], { $0.isNull(at: 0) ? nil : $0.int64(at: 0) }
      ).first ?? nil
    }
  }
}
