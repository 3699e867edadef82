import TollgateStorage
import TollgateWorker

extension SQLiteWorkerStorage {
  // MARK: Worker lease

  public func workerLease() async throws -> WorkerLeaseHolder? {
    try await writer.read { db in try Self.lease(db) }
  }

  public func takeWorkerLease(_ holder: WorkerLeaseHolder, replacing previousOwnerId: String?) async throws -> Bool {
    try await writer.write { db in
      guard try Self.lease(db)?.ownerId == previousOwnerId else { return false }
      try db.execute(
        """
        INSERT INTO worker_lease (id, owner_id, host, pid, process_scope, acquired_at_ms, heartbeat_at_ms)
        VALUES (1, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(id) DO UPDATE SET owner_id = excluded.owner_id, host = excluded.host, pid = excluded.pid,
          process_scope = excluded.process_scope, acquired_at_ms = excluded.acquired_at_ms,
          heartbeat_at_ms = excluded.heartbeat_at_ms
        """,
        [
          .text(holder.ownerId), .text(holder.host), .integer(Int64(holder.pid)), .text(holder.processScope),
          .integer(holder.acquiredAtMs), .integer(holder.heartbeatAtMs),
        ])
      return true
    }
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

  static func lease(_ db: Connection) throws -> WorkerLeaseHolder? {
    try db.prepare(
      "SELECT owner_id, host, pid, process_scope, acquired_at_ms, heartbeat_at_ms FROM worker_lease WHERE id = 1"
    ).rows([]) { row in
      WorkerLeaseHolder(
        ownerId: row.string(at: 0), host: row.string(at: 1), pid: Int32(truncatingIfNeeded: row.int64(at: 2)),
        processScope: row.string(at: 3), acquiredAtMs: row.int64(at: 4), heartbeatAtMs: row.int64(at: 5))
    }.first
  }
}
