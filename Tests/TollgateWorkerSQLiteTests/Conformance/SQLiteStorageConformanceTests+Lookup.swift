import Testing
import TollgateTesting

// MARK: Support lookups (issue 28)

extension SQLiteStorageConformanceTests {
  @Test func lookupByEachKind() async throws {
    try await WorkerStorageConformance.lookupByEachKind(Self.sqlite)
  }

  @Test func lookupGoogleOrderIds() async throws {
    try await WorkerStorageConformance.lookupGoogleOrderIds(Self.sqlite)
  }

  @Test func lookupUnboundAndErasedChains() async throws {
    try await WorkerStorageConformance.lookupUnboundAndErasedChains(Self.sqlite)
  }

  @Test func eventsOfOneChain() async throws {
    try await WorkerStorageConformance.eventsOfOneChain(Self.sqlite)
  }
}
