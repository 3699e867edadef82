import TollgateSQLite
import TollgateStorage
import TollgateWorker

/// Named leases for singleton jobs (`job_leases`, one row per job name): taken, renewed and
/// released in one write transaction each (`BEGIN IMMEDIATE`: one writer at a time, whichever
/// process it is in), and checked inside the transaction of every write a singleton job makes.
extension SQLiteWorkerStorage {
  // MARK: Job leases

  public func takeJobLease(name: String, ownerId: String, nowMs: Int64, ttlMs: Int64) async throws -> JobLease? {
    // A storage that holds the worker lease (checked by `fencedWrite`, in the same transaction)
    // is the only worker on the database: a job lease some earlier worker left is taken at once.
    let exclusive = fence.withLock { $0 != nil }
    return try await fencedWrite { db in
      let current = try Self.jobLease(db, name: name)
      let generation: Int64
      if let current {
        if current.ownerId == ownerId {
          generation = current.generation
        } else if current.ownerId.isEmpty || current.expiresAtMs <= nowMs || exclusive {
          generation = current.generation + 1
        } else {
          return nil
        }
      } else {
        generation = 1
      }
      let lease = JobLease(name: name, ownerId: ownerId, generation: generation, expiresAtMs: nowMs + ttlMs)
      try db.execute(
        """
        INSERT INTO job_leases (name, owner_id, generation, expires_at_ms) VALUES (?, ?, ?, ?)
        ON CONFLICT (name) DO UPDATE SET owner_id = excluded.owner_id, generation = excluded.generation,
          expires_at_ms = excluded.expires_at_ms
        """,
        [.text(name), .text(ownerId), .integer(generation), .integer(lease.expiresAtMs)])
      return lease
    }
  }

  /// Unfenced by the worker lease: giving a job lease up never does harm.
  public func releaseJobLease(_ lease: JobLease) async throws {
    try await writer.write { db in
      try db.execute(
        "UPDATE job_leases SET owner_id = '', expires_at_ms = 0 WHERE name = ? AND owner_id = ? AND generation = ?",
        [.text(lease.name), .text(lease.ownerId), .integer(lease.generation)])
    }
  }

  /// Inside a write's transaction: throws `StorageConflict` (`.leaseLost`) when `lease` is set and
  /// its row no longer names the same owner and generation (taken over, or released). Nil: no
  /// job lease to check.
  static func checkJobLease(_ db: Connection, _ lease: JobLease?) throws {
    guard let lease else { return }
    let current = try jobLease(db, name: lease.name)
    guard let current, current.isSameHolding(as: lease) else { throw JobLease.lost(lease, current: current) }
  }

  static func jobLease(_ db: Connection, name: String) throws -> JobLease? {
    try db.prepare("SELECT owner_id, generation, expires_at_ms FROM job_leases WHERE name = ?").rows([.text(name)]) {
      JobLease(name: name, ownerId: $0.string(at: 0), generation: $0.int64(at: 1), expiresAtMs: $0.int64(at: 2))
    }.first
  }
}
