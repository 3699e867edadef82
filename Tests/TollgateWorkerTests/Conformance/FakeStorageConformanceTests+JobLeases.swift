import Testing
import TollgateTesting

// MARK: Job leases

extension FakeStorageConformanceTests {
  @Test func jobLeaseTakeOverFencesTheFormerHolder() async throws {
    try await WorkerStorageConformance.jobLeaseTakeOverFencesTheFormerHolder(Self.fake)
  }

  @Test func jobLeaseOneHolderAtOnce() async throws {
    try await WorkerStorageConformance.jobLeaseOneHolderAtOnce(Self.fake)
  }
}
