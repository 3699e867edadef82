import Testing
import TollgateTesting

// MARK: Feed readers and the change feed's prune

extension SQLiteStorageConformanceTests {
  @Test func liveFeedReaderHoldsTheFeed() async throws {
    try await WorkerStorageConformance.liveFeedReaderHoldsTheFeed(Self.sqlite)
  }

  @Test func expiredFeedReaderHoldsNothing() async throws {
    try await WorkerStorageConformance.expiredFeedReaderHoldsNothing(Self.sqlite)
  }

  @Test func feedIsPrunedAsAPrefix() async throws {
    try await WorkerStorageConformance.feedIsPrunedAsAPrefix(Self.sqlite)
  }
}
