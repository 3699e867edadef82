import Testing
import TollgateTesting

// MARK: The service's view: records, the feed, submissions

extension FakeStorageConformanceTests {
  @Test(.disabled("the fake keeps no service view: records, the feed and submissions are the service's storage"))
  func replaceEntitlementsAppendsFeed() async throws {
    try await WorkerStorageConformance.replaceEntitlementsAppendsFeed(Self.fake)
  }

  @Test(.disabled("the fake keeps no service view: records, the feed and submissions are the service's storage"))
  func entitlementRecordRoundTrips() async throws {
    try await WorkerStorageConformance.entitlementRecordRoundTrips(Self.fake)
  }

  @Test(.disabled("the fake keeps no service view: records, the feed and submissions are the service's storage"))
  func submissionReadBackPending() async throws {
    try await WorkerStorageConformance.submissionReadBackPending(Self.fake)
  }
}
