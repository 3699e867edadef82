import Logging
import PostgresNIO
import TollgatePostgres
import TollgateWorker

extension PostgresWorkerStorage {
  /// The worker lease row as it stands in this transaction, locked `FOR SHARE`: a take-over (an
  /// UPDATE of the row) waits until this transaction commits, so it cannot land between this
  /// check and this transaction's commit, while the holder's own fenced writes, each sharing the
  /// lock, never wait for one another.
  static func lockedLease(_ connection: PostgresSession, logger: Logger) async throws -> WorkerLeaseHolder? {
    let rows = try await connection.query(
      """
      SELECT owner_id, host, pid, process_scope, acquired_at_ms, heartbeat_at_ms, generation
      FROM worker_lease WHERE id = 1 FOR SHARE
      """, logger: logger
    ).collect()
    guard let row = rows.first else { return nil }
    let (ownerId, host, pid, scope, acquiredAtMs, heartbeatAtMs, generation) = try row.decode(
      (String, String, Int64, String, Int64, Int64, Int64).self)
    return WorkerLeaseHolder(
      ownerId: ownerId, host: host, pid: Int32(clamping: pid), processScope: scope, acquiredAtMs: acquiredAtMs,
      heartbeatAtMs: heartbeatAtMs, generation: generation)
  }

  /// Throws `WorkerLeaseError` (`.lost`) when the lease row no longer names `fence`'s owner and
  /// generation: another worker took the database over, and this one must write nothing more.
  static func checkFence(_ fence: LeaseFence, _ connection: PostgresSession, logger: Logger) async throws {
    let current = try await lockedLease(connection, logger: logger)
    if current?.ownerId != fence.ownerId || current?.generation != fence.generation {
      throw WorkerLeaseError.lost(current: current)
    }
  }
}
