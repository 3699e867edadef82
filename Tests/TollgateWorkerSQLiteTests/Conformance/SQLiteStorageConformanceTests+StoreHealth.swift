import Testing
import TollgateTesting

// MARK: Store health

extension SQLiteStorageConformanceTests {
  @Test func storeOutagesSharedAcrossHandles() async throws {
    try await WorkerStorageConformance.storeOutagesSharedAcrossHandles(Self.sqlite)
  }

  @Test func storeOutageEndsOnce() async throws {
    try await WorkerStorageConformance.storeOutageEndsOnce(Self.sqlite)
  }

  @Test func storeCallBudgetSharedAcrossHandles() async throws {
    try await WorkerStorageConformance.storeCallBudgetSharedAcrossHandles(Self.sqlite)
  }
}
