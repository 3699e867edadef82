import TollgateSQLite
import TollgateStorage
import TollgateWorker

extension SQLiteWorkerStorage {
  // MARK: Worker lease

  public func workerLease() async throws -> WorkerLeaseHolder? {
    try await writer.read { db in try Self.lease(db) }
  }

  /// Takes the lease and, once taken, fences every write through this storage by it (see
  /// `fencedWrite`). The previous holder's claimed inbox items are handed back, due now: its
  /// writes are fenced off, so nothing it still does with them can land (issue 24).
  public func takeWorkerLease(_ holder: WorkerLeaseHolder, replacing previousOwnerId: String?) async throws -> Bool {
    let taken: Int64? = try await writer.write { db in
      guard try Self.lease(db)?.ownerId == previousOwnerId else { return nil }
      try db.execute(
        """
        INSERT INTO worker_lease (id, owner_id, host, pid, process_scope, acquired_at_ms, heartbeat_at_ms, generation)
        VALUES (1, ?, ?, ?, ?, ?, ?, 1)
        ON CONFLICT(id) DO UPDATE SET owner_id = excluded.owner_id, host = excluded.host, pid = excluded.pid,
          process_scope = excluded.process_scope, acquired_at_ms = excluded.acquired_at_ms,
          heartbeat_at_ms = excluded.heartbeat_at_ms, generation = worker_lease.generation + 1
        """,
        [
          .text(holder.ownerId), .text(holder.host), .integer(Int64(holder.pid)), .text(holder.processScope),
          .integer(holder.acquiredAtMs), .integer(holder.heartbeatAtMs),
        ])
      try Self.reclaimInFlight(db)
      return try Self.lease(db)?.generation
    }
    guard let taken else { return false }
    fence.withLock { $0 = LeaseFence(ownerId: holder.ownerId, generation: taken) }
    return true
  }

  public func renewWorkerLease(ownerId: String, heartbeatAtMs: Int64) async throws -> Bool {
    try await writer.write { db in
      try db.execute(
        "UPDATE worker_lease SET heartbeat_at_ms = ? WHERE id = 1 AND owner_id = ?",
        [.integer(heartbeatAtMs), .text(ownerId)])
      return db.changes == 1
    }
  }

  public func releaseWorkerLease(ownerId: String) async throws {
    try await writer.write { db in
      try db.execute("DELETE FROM worker_lease WHERE id = 1 AND owner_id = ?", [.text(ownerId)])
    }
  }

  /// Runs `body` in one write transaction, after checking inside it that this storage's worker
  /// still holds the lease it took (same owner and generation): otherwise throws
  /// `WorkerLeaseError` (`.lost`) and writes nothing. A storage that never took the lease (the
  /// admin commands, tools) writes unfenced.
  func fencedWrite<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
    let fence = self.fence.withLock { $0 }
    return try await writer.write { db in
      if let fence {
        let current = try Self.lease(db)
        if current?.ownerId != fence.ownerId || current?.generation != fence.generation {
          throw WorkerLeaseError.lost(current: current)
        }
      }
      return try body(db)
    }
  }

  /// The inbox items a previous holder claimed and did not finish, pending again, their claims
  /// ended. They were due when it claimed them (`next_attempt_at_ms` is unchanged by a claim), so
  /// they are due now.
  static func reclaimInFlight(_ db: Connection) throws {
    try db.execute(
      "UPDATE inbox SET status = 'pending', lease_until_ms = NULL, claim_token = 0 WHERE status = 'processing'")
  }

  static func lease(_ db: Connection) throws -> WorkerLeaseHolder? {
    try db.prepare(
      """
      SELECT owner_id, host, pid, process_scope, acquired_at_ms, heartbeat_at_ms, generation FROM worker_lease
      WHERE id = 1
      """
    ).rows([]) { row in
      WorkerLeaseHolder(
        ownerId: row.string(at: 0), host: row.string(at: 1), pid: Int32(truncatingIfNeeded: row.int64(at: 2)),
        processScope: row.string(at: 3), acquiredAtMs: row.int64(at: 4), heartbeatAtMs: row.int64(at: 5),
        generation: row.int64(at: 6))
    }.first
  }
}

/// The lease a storage's writes are fenced by: its holder's owner id and the generation it took.
struct LeaseFence: Sendable {
  var ownerId: String
  var generation: Int64
}
