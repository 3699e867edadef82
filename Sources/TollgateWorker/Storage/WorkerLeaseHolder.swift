/// The worker that holds a database's worker lease: one worker runs per database, and this row
/// says which one, and when it last showed it was alive.
public struct WorkerLeaseHolder: Sendable, Hashable {
  /// Random per run of a worker: the lease is renewed and released only by the run that took it.
  public var ownerId: String
  public var host: String
  public var pid: Int32
  /// The kernel boot and process-id namespace the holder ran in (empty when unknown). A worker
  /// in the same scope can ask the kernel whether the holder's process still exists.
  public var processScope: String
  /// Wall-clock ms.
  public var acquiredAtMs: Int64
  /// When the holder last renewed the lease (wall-clock ms).
  public var heartbeatAtMs: Int64
  /// The fencing token: the storage counts every take of the lease (set by `takeWorkerLease`,
  /// ignored when passed to it). Together with `ownerId`, what every write of the holder checks
  /// inside its transaction (`WorkerStorage`, "Fencing").
  public var generation: Int64

  public init(
    ownerId: String, host: String, pid: Int32, processScope: String, acquiredAtMs: Int64, heartbeatAtMs: Int64,
    generation: Int64 = 0
  ) {
    self.ownerId = ownerId
    self.host = host
    self.pid = pid
    self.processScope = processScope
    self.acquiredAtMs = acquiredAtMs
    self.heartbeatAtMs = heartbeatAtMs
    self.generation = generation
  }
}
