import Logging
import NIOCore
import PostgresNIO
import TollgateCore
import TollgatePostgres
import TollgateStorage
import TollgateWorker

extension PostgresWorkerStorage {
  // MARK: Inbox

  /// Stores a notification durably. A second one with the same `dedupeKey` is not stored again
  /// (`ON CONFLICT DO NOTHING`: a concurrent insert of the same key waits for the first to
  /// commit, then finds its row). Unfenced, as on SQLite: it only adds to the inbox.
  public func storeNotification(
    route: String, dedupeKey: String, payload: [UInt8], requestId: String?, nowMs: Int64
  ) async throws -> (id: Int64, duplicate: Bool) {
    try await database.withConnection { connection in
      let inserted = try await connection.query(
        """
        INSERT INTO inbox (kind, store, payload, dedupe_key, received_at_ms, next_attempt_at_ms, request_id)
        VALUES ('notification', \(route), \(ByteBuffer(bytes: payload)), \(dedupeKey), \(nowMs), \(nowMs),
          \(requestId))
        ON CONFLICT (dedupe_key) DO NOTHING RETURNING id
        """, logger: logger
      ).collect()
      if let row = inserted.first { return (try row.decode(Int64.self), false) }
      let existing = try await connection.query(
        "SELECT id FROM inbox WHERE dedupe_key = \(dedupeKey)", logger: logger
      ).collect()
      return (try existing.first?.decode(Int64.self) ?? 0, true)
    }
  }

  /// Claims up to `limit` due items (pending and due, or processing with an expired lease: a
  /// worker that died mid-item), leasing them for `leaseMs`, each under a new random nonzero
  /// fencing token. One statement: the items are picked `FOR UPDATE SKIP LOCKED` (another
  /// worker's claim in flight is passed over, never waited for nor taken twice) and the UPDATE
  /// is itself conditional on each item still being claimable. The pick is a `MATERIALIZED`
  /// CTE, run once: as `WHERE id IN (subquery)` the planner may choose a nested-loop semi join
  /// that runs the subquery again for each row, each run skipping the rows the statement has
  /// just updated and picking the next ones, so `LIMIT` no longer bounds the claim (the
  /// conformance case `claimExcludesOwnRunningItems` saw `limit: 1` claim two items).
  public func claimInbox(nowMs: Int64, limit: Int, leaseMs: Int64, excluding: Set<Int64> = []) async throws
    -> [InboxItem]
  {
    guard limit > 0 else { return [] }
    let excluded = Array(excluding)
    let rows = try await fencedTransaction { connection in
      try await connection.query(
        """
        WITH picked AS MATERIALIZED (
          SELECT id FROM inbox
          WHERE ((status = 'pending' AND next_attempt_at_ms <= \(nowMs))
            OR (status = 'processing' AND lease_until_ms <= \(nowMs)))
            AND id <> ALL(\(excluded))
          ORDER BY next_attempt_at_ms, id LIMIT \(Int64(limit)) FOR UPDATE SKIP LOCKED)
        UPDATE inbox SET status = 'processing', lease_until_ms = \(nowMs + leaseMs), attempts = attempts + 1,
          claim_token = 1 + floor(random() * 9.2e18)::bigint
        FROM picked
        WHERE inbox.id = picked.id
          AND ((status = 'pending' AND next_attempt_at_ms <= \(nowMs))
            OR (status = 'processing' AND lease_until_ms <= \(nowMs)))
        RETURNING inbox.id, kind, store, user_id, payload, attempts - 1, received_at_ms, claim_token, next_attempt_at_ms,
          request_id
        """, logger: logger
      ).collect()
    }
    var claimed: [(item: InboxItem, dueAtMs: Int64)] = []
    for row in rows {
      let (id, kind, store, userId, payload, attempts, receivedAtMs, token, dueAtMs, requestId) = try row.decode(
        (Int64, String, String, String?, ByteBuffer, Int64, Int64, Int64, Int64, String?).self)
      var item = InboxItem(
        id: id, kind: InboxItem.Kind(rawValue: kind) ?? .purchase, store: store, userId: userId,
        payload: Array(buffer: payload), attempts: Int(attempts), receivedAtMs: receivedAtMs, requestId: requestId)
      item.claimToken = token
      claimed.append((item, dueAtMs))
    }
    // Oldest due first, as they were picked (RETURNING keeps no order).
    return claimed.sorted { ($0.dueAtMs, $0.item.id) < ($1.dueAtMs, $1.item.id) }.map(\.item)
  }

  /// Extends the leases of `claims` still current (their token is the item's, still processing),
  /// in one statement.
  public func renewInboxClaims(_ claims: [InboxClaim], untilMs: Int64) async throws -> Int {
    guard !claims.isEmpty else { return 0 }
    let ids = claims.map(\.id)
    let tokens = claims.map(\.claimToken)
    let rows = try await fencedTransaction { connection in
      try await connection.query(
        """
        UPDATE inbox SET lease_until_ms = \(untilMs)
        FROM unnest(\(ids)::bigint[], \(tokens)::bigint[]) AS claim(id, token)
        WHERE inbox.id = claim.id AND inbox.claim_token = claim.token AND inbox.status = 'processing'
        RETURNING inbox.id
        """, logger: logger
      ).collect()
    }
    return rows.count
  }

  /// Puts an item back to be tried again at `atMs` (store trouble), ending its claim; nothing
  /// else changes. `StorageConflict` (`.claimLost`) when the claim is not the item's current one.
  public func retryInbox(id: Int64, claimToken: Int64, atMs: Int64, error: String) async throws {
    try await fencedTransaction { connection in
      let rows = try await connection.query(
        """
        UPDATE inbox SET status = 'pending', next_attempt_at_ms = \(atMs), lease_until_ms = NULL,
          last_error = \(error), claim_token = 0
        WHERE id = \(id) AND status = 'processing' AND claim_token = \(claimToken) RETURNING id
        """, logger: logger
      ).collect()
      if rows.count != 1 { throw try await Self.claimLost(connection, id: id, doing: "retried", logger: logger) }
    }
  }

  /// Ends an item without a subscription change (rejected, a TEST notification, …).
  /// `StorageConflict` (`.claimLost`) when the claim is not the item's current one.
  public func finishInbox(id: Int64, claimToken: Int64, state: SubmissionState, outcome: String, nowMs: Int64)
    async throws
  {
    try await fencedTransaction { connection in
      try await Self.finish(
        connection, InboxCompletion(id: id, claimToken: claimToken, state: state, outcome: outcome), nowMs: nowMs,
        logger: logger)
    }
  }

  /// Ends the claimed item `completion` names, inside the caller's transaction; throws
  /// `StorageConflict` (`.claimLost`) when that claim is not the item's current one, so the
  /// caller's transaction rolls back and nothing it wrote lands.
  static func finish(
    _ connection: PostgresSession, _ completion: InboxCompletion, nowMs: Int64, logger: Logger
  ) async throws {
    let rows = try await connection.query(
      """
      UPDATE inbox SET status = \(completion.state.rawValue), outcome = \(completion.outcome),
        completed_at_ms = \(nowMs), lease_until_ms = NULL, claim_token = 0
      WHERE id = \(completion.id) AND status = 'processing' AND claim_token = \(completion.claimToken) RETURNING id
      """, logger: logger
    ).collect()
    if rows.count != 1 {
      throw try await claimLost(connection, id: completion.id, doing: "finished", logger: logger)
    }
  }

  /// The refusal of a write under a claim that is no longer the item's current one, saying why.
  static func claimLost(_ connection: PostgresSession, id: Int64, doing: String, logger: Logger) async throws
    -> StorageConflict
  {
    let status = try await connection.query("SELECT status FROM inbox WHERE id = \(id)", logger: logger).collect()
      .first?.decode(String.self)
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
    var counts: [String: Int] = [:]
    for row in try await database.query("SELECT status, COUNT(*) FROM inbox GROUP BY status") {
      let (status, count) = try row.decode((String, Int64).self)
      counts[status] = Int(count)
    }
    return counts
  }

  public func oldestUnfinishedInboxItemAtMs() async throws -> Int64? {
    let rows = try await database.query(
      "SELECT MIN(received_at_ms) FROM inbox WHERE status IN ('pending', 'processing')")
    return try rows.first?.decode(Int64?.self) ?? nil
  }

  /// The user's rejected submissions, newest first (finished inbox items of kind `purchase`).
  public func rejectedSubmissions(userId: String, limit: Int) async throws -> [RejectedSubmission] {
    let rows = try await database.query(
      """
      SELECT store, product_id, received_at_ms, completed_at_ms, outcome FROM inbox
      WHERE kind = 'purchase' AND user_id = \(userId) AND status = 'rejected' ORDER BY id DESC LIMIT \(Int64(limit))
      """)
    return try rows.map { row in
      let (store, productId, receivedAtMs, completedAtMs, outcome) = try row.decode(
        (String, String?, Int64, Int64?, String?).self)
      return RejectedSubmission(
        store: store, productId: productId, receivedAtMs: receivedAtMs, rejectedAtMs: completedAtMs,
        reason: outcome ?? "")
    }
  }
}
