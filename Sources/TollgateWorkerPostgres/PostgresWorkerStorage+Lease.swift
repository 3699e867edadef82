import Logging
import PostgresNIO
import TollgatePostgres
import TollgateStorage
import TollgateWorker

/// The worker lease (`worker_lease`, one row): which worker runs alone on the database when
/// `worker.exclusive` is set. A take is one conditional write (an insert that does nothing when a
/// row exists, or an update conditional on the previous owner), so of two takes at once exactly
/// one wins; its transaction also hands the previous holder's claimed inbox items back. Every
/// later write of this storage is fenced by the lease it took (`fencedTransaction`, `checkFence`).
extension PostgresWorkerStorage {
  // MARK: Worker lease

  public func workerLease() async throws -> WorkerLeaseHolder? {
    try await database.query(
      """
      SELECT owner_id, host, pid, process_scope, acquired_at_ms, heartbeat_at_ms, generation
      FROM worker_lease WHERE id = 1
      """
    ).first.map(Self.leaseHolder)
  }

  /// Takes the lease and, once taken, fences every write through this storage by it. The previous
  /// holder's claimed inbox items are handed back, due now: its writes are fenced off, so nothing
  /// it still does with them can land.
  public func takeWorkerLease(_ holder: WorkerLeaseHolder, replacing previousOwnerId: String?) async throws -> Bool {
    let taken: Int64? = try await database.transaction { connection in
      let rows: [PostgresRow]
      if let previousOwnerId {
        // Conditional on the owner: a take-over that committed first changed it, and this update
        // (which waits for that commit, then evaluates its condition again) finds no row.
        rows = try await connection.query(
          """
          UPDATE worker_lease SET owner_id = \(holder.ownerId), host = \(holder.host), pid = \(Int64(holder.pid)),
            process_scope = \(holder.processScope), acquired_at_ms = \(holder.acquiredAtMs),
            heartbeat_at_ms = \(holder.heartbeatAtMs), generation = generation + 1
          WHERE id = 1 AND owner_id = \(previousOwnerId)
          RETURNING generation
          """, logger: logger
        ).collect()
      } else {
        // Held by nobody: there is no row (a release deletes it, as on SQLite). A row another take
        // inserted meanwhile makes this insert do nothing.
        rows = try await connection.query(
          """
          INSERT INTO worker_lease (id, owner_id, host, pid, process_scope, acquired_at_ms, heartbeat_at_ms, generation)
          VALUES (1, \(holder.ownerId), \(holder.host), \(Int64(holder.pid)), \(holder.processScope),
            \(holder.acquiredAtMs), \(holder.heartbeatAtMs), 1)
          ON CONFLICT (id) DO NOTHING
          RETURNING generation
          """, logger: logger
        ).collect()
      }
      guard let row = rows.first else { return nil }
      try await Self.reclaimInFlight(connection, logger: logger)
      return try row.decode(Int64.self)
    }
    guard let taken else { return false }
    fence.withLock { $0 = LeaseFence(ownerId: holder.ownerId, generation: taken) }
    return true
  }

  public func renewWorkerLease(ownerId: String, heartbeatAtMs: Int64) async throws -> Bool {
    let rows = try await database.query(
      "UPDATE worker_lease SET heartbeat_at_ms = \(heartbeatAtMs) WHERE id = 1 AND owner_id = \(ownerId) RETURNING id")
    return rows.count == 1
  }

  public func releaseWorkerLease(ownerId: String) async throws {
    _ = try await database.query("DELETE FROM worker_lease WHERE id = 1 AND owner_id = \(ownerId)")
  }

  /// The inbox items a previous holder claimed and did not finish, pending again, their claims
  /// ended. They were due when it claimed them (`next_attempt_at_ms` is unchanged by a claim), so
  /// they are due now.
  static func reclaimInFlight(_ connection: PostgresSession, logger: Logger) async throws {
    try await connection.query(
      "UPDATE inbox SET status = 'pending', lease_until_ms = NULL, claim_token = 0 WHERE status = 'processing'",
      logger: logger)
  }

  static func leaseHolder(_ row: PostgresRow) throws -> WorkerLeaseHolder {
    let (ownerId, host, pid, scope, acquiredAtMs, heartbeatAtMs, generation) = try row.decode(
      (String, String, Int64, String, Int64, Int64, Int64).self)
    return WorkerLeaseHolder(
      ownerId: ownerId, host: host, pid: Int32(truncatingIfNeeded: pid), processScope: scope,
      acquiredAtMs: acquiredAtMs, heartbeatAtMs: heartbeatAtMs, generation: generation)
  }
}
