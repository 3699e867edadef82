import Testing
import TollgateTesting

// MARK: Job leases

extension PostgresStorageConformanceTests {
  @Test func jobLeaseTakeOverFencesTheFormerHolder() async throws {
    try await WorkerStorageConformance.jobLeaseTakeOverFencesTheFormerHolder(Self.postgres)
  }

  @Test func jobLeaseOneHolderAtOnce() async throws {
    try await WorkerStorageConformance.jobLeaseOneHolderAtOnce(Self.postgres)
  }
}
