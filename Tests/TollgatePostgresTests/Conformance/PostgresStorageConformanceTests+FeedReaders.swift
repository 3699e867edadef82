import Testing
import TollgateTesting

// MARK: Feed readers and the change feed's prune

extension PostgresStorageConformanceTests {
  @Test func liveFeedReaderHoldsTheFeed() async throws {
    try await WorkerStorageConformance.liveFeedReaderHoldsTheFeed(Self.postgres)
  }

  @Test func expiredFeedReaderHoldsNothing() async throws {
    try await WorkerStorageConformance.expiredFeedReaderHoldsNothing(Self.postgres)
  }

  @Test func feedIsPrunedAsAPrefix() async throws {
    try await WorkerStorageConformance.feedIsPrunedAsAPrefix(Self.postgres)
  }
}
