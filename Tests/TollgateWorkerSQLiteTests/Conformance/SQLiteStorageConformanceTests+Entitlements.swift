import Testing
import TollgateTesting

// MARK: The service's view: records, the feed, submissions

extension SQLiteStorageConformanceTests {
  @Test func replaceEntitlementsAppendsFeed() async throws {
    try await WorkerStorageConformance.replaceEntitlementsAppendsFeed(Self.sqlite)
  }

  @Test func entitlementRecordRoundTrips() async throws {
    try await WorkerStorageConformance.entitlementRecordRoundTrips(Self.sqlite)
  }

  @Test func submissionReadBackPending() async throws {
    try await WorkerStorageConformance.submissionReadBackPending(Self.sqlite)
  }
}
