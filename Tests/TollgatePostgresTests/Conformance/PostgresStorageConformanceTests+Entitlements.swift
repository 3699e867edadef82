import Testing
import TollgateTesting

// MARK: The service's view: records, the feed, submissions

extension PostgresStorageConformanceTests {
  @Test func replaceEntitlementsAppendsFeed() async throws {
    try await WorkerStorageConformance.replaceEntitlementsAppendsFeed(Self.postgres)
  }

  @Test func entitlementRecordRoundTrips() async throws {
    try await WorkerStorageConformance.entitlementRecordRoundTrips(Self.postgres)
  }

  @Test func submissionReadBackPending() async throws {
    try await WorkerStorageConformance.submissionReadBackPending(Self.postgres)
  }
}
