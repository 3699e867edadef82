import Testing
import TollgateTesting

// MARK: Store health

extension FakeStorageConformanceTests {
  @Test func storeOutagesSharedAcrossHandles() async throws {
    try await WorkerStorageConformance.storeOutagesSharedAcrossHandles(Self.fake)
  }

  @Test func storeOutageEndsOnce() async throws {
    try await WorkerStorageConformance.storeOutageEndsOnce(Self.fake)
  }

  @Test func storeCallBudgetSharedAcrossHandles() async throws {
    try await WorkerStorageConformance.storeCallBudgetSharedAcrossHandles(Self.fake)
  }
}
