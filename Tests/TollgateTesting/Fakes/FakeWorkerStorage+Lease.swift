import TollgateWorker

/// The worker lease in the fake: always free, so every worker under test may run. The lease
/// itself is tested on SQLite (`SQLiteWorkerStorageLeaseTests`, `WorkerLeaseEndToEndTests`).
extension FakeWorkerStorage {
  package func workerLease() async throws -> WorkerLeaseHolder? { nil }
  package func takeWorkerLease(_ holder: WorkerLeaseHolder, replacing previousOwnerId: String?) async throws -> Bool {
    true
  }
  package func renewWorkerLease(ownerId: String, heartbeatAtMs: Int64) async throws -> Bool { true }
  package func releaseWorkerLease(ownerId: String) async throws {}
}

extension FakeWorkerStorage {
  package func storageProblem() async -> String? { nil }
}
