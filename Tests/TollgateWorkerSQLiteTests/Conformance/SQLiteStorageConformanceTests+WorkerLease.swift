import Testing
import TollgateTesting

// MARK: The worker lease

extension SQLiteStorageConformanceTests {
  @Test func workerLeaseRow() async throws {
    try await WorkerStorageConformance.workerLeaseRow(Self.sqlite)
  }

  @Test func workerLeaseConcurrentTakesOneWins() async throws {
    try await WorkerStorageConformance.workerLeaseConcurrentTakesOneWins(Self.sqlite)
  }

  @Test func workerLeaseFencesInboxAndChains() async throws {
    try await WorkerStorageConformance.workerLeaseFencesInboxAndChains(Self.sqlite)
  }

  @Test func workerLeaseFencesGrantsAndJobs() async throws {
    try await WorkerStorageConformance.workerLeaseFencesGrantsAndJobs(Self.sqlite)
  }

  @Test func workerLeaseGenerationFences() async throws {
    try await WorkerStorageConformance.workerLeaseGenerationFences(Self.sqlite)
  }
}
