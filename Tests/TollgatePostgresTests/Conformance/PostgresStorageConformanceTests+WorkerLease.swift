import Testing
import TollgateTesting

// MARK: The worker lease

extension PostgresStorageConformanceTests {
  @Test func workerLeaseRow() async throws {
    try await WorkerStorageConformance.workerLeaseRow(Self.postgres)
  }

  @Test func workerLeaseConcurrentTakesOneWins() async throws {
    try await WorkerStorageConformance.workerLeaseConcurrentTakesOneWins(Self.postgres)
  }

  @Test func workerLeaseFencesInboxAndChains() async throws {
    try await WorkerStorageConformance.workerLeaseFencesInboxAndChains(Self.postgres)
  }

  @Test func workerLeaseFencesGrantsAndJobs() async throws {
    try await WorkerStorageConformance.workerLeaseFencesGrantsAndJobs(Self.postgres)
  }

  @Test func workerLeaseGenerationFences() async throws {
    try await WorkerStorageConformance.workerLeaseGenerationFences(Self.postgres)
  }
}
