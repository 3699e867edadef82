import Testing
import TollgateTesting

// MARK: Webhook parking, redelivery, backlog

extension FakeStorageConformanceTests {
  @Test func webhookParksAtTheLimit() async throws {
    try await WorkerStorageConformance.webhookParksAtTheLimit(Self.fake)
  }

  @Test func webhookRedelivery() async throws {
    try await WorkerStorageConformance.webhookRedelivery(Self.fake)
  }

  @Test func webhookBacklogCounts() async throws {
    try await WorkerStorageConformance.webhookBacklogCounts(Self.fake)
  }

  @Test(.disabled("the fake keeps no change feed, and its prune keeps no newest event"))
  func pruneKeepsParkedWebhookEvents() async throws {
    try await WorkerStorageConformance.pruneKeepsParkedWebhookEvents(Self.fake)
  }
}
