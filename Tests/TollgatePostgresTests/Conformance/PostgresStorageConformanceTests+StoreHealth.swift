import Testing
import TollgateTesting

// MARK: Store health

extension PostgresStorageConformanceTests {
  @Test func storeOutagesSharedAcrossHandles() async throws {
    try await WorkerStorageConformance.storeOutagesSharedAcrossHandles(Self.postgres)
  }

  @Test func storeOutageEndsOnce() async throws {
    try await WorkerStorageConformance.storeOutageEndsOnce(Self.postgres)
  }

  @Test func storeCallBudgetSharedAcrossHandles() async throws {
    try await WorkerStorageConformance.storeCallBudgetSharedAcrossHandles(Self.postgres)
  }
}
