import Testing
import TollgateTesting

// MARK: Support lookups (issue 28)

extension FakeStorageConformanceTests {
  @Test func lookupByEachKind() async throws {
    try await WorkerStorageConformance.lookupByEachKind(Self.fake)
  }

  @Test func lookupGoogleOrderIds() async throws {
    try await WorkerStorageConformance.lookupGoogleOrderIds(Self.fake)
  }

  @Test func lookupUnboundAndErasedChains() async throws {
    try await WorkerStorageConformance.lookupUnboundAndErasedChains(Self.fake)
  }

  @Test func eventsOfOneChain() async throws {
    try await WorkerStorageConformance.eventsOfOneChain(Self.fake)
  }
}
