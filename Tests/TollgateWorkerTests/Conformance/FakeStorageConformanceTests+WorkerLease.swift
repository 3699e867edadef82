import Testing
import TollgateTesting

// MARK: The worker lease

extension FakeStorageConformanceTests {
  @Test(.disabled("the fake has no worker lease: every take wins and nothing is fenced"))
  func workerLeaseRow() async throws {
    try await WorkerStorageConformance.workerLeaseRow(Self.fake)
  }

  @Test(.disabled("the fake has no worker lease: every take wins and nothing is fenced"))
  func workerLeaseConcurrentTakesOneWins() async throws {
    try await WorkerStorageConformance.workerLeaseConcurrentTakesOneWins(Self.fake)
  }

  @Test(.disabled("the fake has no worker lease: every take wins and nothing is fenced"))
  func workerLeaseFencesInboxAndChains() async throws {
    try await WorkerStorageConformance.workerLeaseFencesInboxAndChains(Self.fake)
  }

  @Test(.disabled("the fake has no worker lease: every take wins and nothing is fenced"))
  func workerLeaseFencesGrantsAndJobs() async throws {
    try await WorkerStorageConformance.workerLeaseFencesGrantsAndJobs(Self.fake)
  }

  @Test(.disabled("the fake has no worker lease: every take wins and nothing is fenced"))
  func workerLeaseGenerationFences() async throws {
    try await WorkerStorageConformance.workerLeaseGenerationFences(Self.fake)
  }
}
