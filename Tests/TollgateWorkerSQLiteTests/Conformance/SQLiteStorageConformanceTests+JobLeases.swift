import Testing
import TollgateTesting

// MARK: Job leases

extension SQLiteStorageConformanceTests {
  @Test func jobLeaseTakeOverFencesTheFormerHolder() async throws {
    try await WorkerStorageConformance.jobLeaseTakeOverFencesTheFormerHolder(Self.sqlite)
  }

  @Test func jobLeaseOneHolderAtOnce() async throws {
    try await WorkerStorageConformance.jobLeaseOneHolderAtOnce(Self.sqlite)
  }
}
