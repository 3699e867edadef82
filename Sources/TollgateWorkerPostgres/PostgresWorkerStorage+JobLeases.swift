import Logging
import PostgresNIO
import TollgatePostgres
import TollgateStorage
import TollgateWorker

/// Named leases for singleton jobs (`job_leases`, one row per job name), shared by every worker on
/// the database. A take is one conditional upsert: PostgreSQL locks the row it conflicts with and
/// evaluates the condition on its newest version, so of two takes at once exactly one wins. Every
/// write a singleton job makes checks its lease inside its own transaction (`checkJobLease`),
/// holding the row (`FOR SHARE`) so a take-over cannot commit between the check and the write.
extension PostgresWorkerStorage {
  // MARK: Job leases

  public func takeJobLease(name: String, ownerId: String, nowMs: Int64, ttlMs: Int64) async throws -> JobLease? {
    // A storage that holds the worker lease (checked by `fencedTransaction`, in the same
    // transaction) is the only worker on the database: a job lease some earlier worker left is
    // taken at once.
    let exclusive = fence.withLock { $0 != nil }
    let expiresAtMs = nowMs + ttlMs
    return try await fencedTransaction { connection in
      // Granted when nobody holds it (no row, or released: an empty owner), when it expired, when
      // `ownerId` holds it already (a renewal keeps the generation) or when this worker is exclusive.
      let rows = try await connection.query(
        """
        INSERT INTO job_leases AS lease (name, owner_id, generation, expires_at_ms)
        VALUES (\(name), \(ownerId), 1, \(expiresAtMs))
        ON CONFLICT (name) DO UPDATE SET owner_id = excluded.owner_id,
          generation = CASE WHEN lease.owner_id = excluded.owner_id THEN lease.generation
            ELSE lease.generation + 1 END,
          expires_at_ms = excluded.expires_at_ms
        WHERE lease.owner_id = excluded.owner_id OR lease.owner_id = '' OR lease.expires_at_ms <= \(nowMs)
          OR \(exclusive)
        RETURNING generation
        """, logger: logger
      ).collect()
      guard let row = rows.first else { return nil }
      return JobLease(name: name, ownerId: ownerId, generation: try row.decode(Int64.self), expiresAtMs: expiresAtMs)
    }
  }

  /// Unfenced by the worker lease: giving a job lease up never does harm. The row stays with an
  /// empty owner, so the generation goes on counting.
  public func releaseJobLease(_ lease: JobLease) async throws {
    _ = try await database.query(
      """
      UPDATE job_leases SET owner_id = '', expires_at_ms = 0
      WHERE name = \(lease.name) AND owner_id = \(lease.ownerId) AND generation = \(lease.generation)
      """)
  }

  /// Inside a write's transaction: throws `StorageConflict` (`.leaseLost`) when `lease` is set and
  /// its row no longer names the same owner and generation (taken over, or released). The row is
  /// held (`FOR SHARE`) until the write commits: a take-over waits for it, and a write that waited
  /// for a take-over reads the new holder. Nil: no job lease to check.
  static func checkJobLease(_ connection: PostgresSession, _ lease: JobLease?, logger: Logger) async throws {
    guard let lease else { return }
    let rows = try await connection.query(
      "SELECT owner_id, generation, expires_at_ms FROM job_leases WHERE name = \(lease.name) FOR SHARE",
      logger: logger
    ).collect()
    let current = try rows.first.map { row in
      let (ownerId, generation, expiresAtMs) = try row.decode((String, Int64, Int64).self)
      return JobLease(name: lease.name, ownerId: ownerId, generation: generation, expiresAtMs: expiresAtMs)
    }
    guard let current, current.isSameHolding(as: lease) else { throw JobLease.lost(lease, current: current) }
  }
}
