import Testing
import TollgateTesting

// MARK: Support lookups (issue 28)

extension PostgresStorageConformanceTests {
  @Test func lookupByEachKind() async throws {
    try await WorkerStorageConformance.lookupByEachKind(Self.postgres)
  }

  @Test func lookupGoogleOrderIds() async throws {
    try await WorkerStorageConformance.lookupGoogleOrderIds(Self.postgres)
  }

  @Test func lookupUnboundAndErasedChains() async throws {
    try await WorkerStorageConformance.lookupUnboundAndErasedChains(Self.postgres)
  }

  @Test func eventsOfOneChain() async throws {
    try await WorkerStorageConformance.eventsOfOneChain(Self.postgres)
  }
}
