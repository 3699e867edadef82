import Testing
import TollgateTesting

// MARK: Feed readers and the change feed's prune

extension FakeStorageConformanceTests {
  @Test(.disabled("the fake keeps no change feed"))
  func liveFeedReaderHoldsTheFeed() async throws {
    try await WorkerStorageConformance.liveFeedReaderHoldsTheFeed(Self.fake)
  }

  @Test(.disabled("the fake keeps no change feed"))
  func expiredFeedReaderHoldsNothing() async throws {
    try await WorkerStorageConformance.expiredFeedReaderHoldsNothing(Self.fake)
  }

  @Test(.disabled("the fake keeps no change feed"))
  func feedIsPrunedAsAPrefix() async throws {
    try await WorkerStorageConformance.feedIsPrunedAsAPrefix(Self.fake)
  }
}
