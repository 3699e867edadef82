import Testing
import TollgateTesting

// MARK: Webhook parking, redelivery, backlog

extension SQLiteStorageConformanceTests {
  @Test func webhookParksAtTheLimit() async throws {
    try await WorkerStorageConformance.webhookParksAtTheLimit(Self.sqlite)
  }

  @Test func webhookRedelivery() async throws {
    try await WorkerStorageConformance.webhookRedelivery(Self.sqlite)
  }

  @Test func webhookBacklogCounts() async throws {
    try await WorkerStorageConformance.webhookBacklogCounts(Self.sqlite)
  }

  @Test func pruneKeepsParkedWebhookEvents() async throws {
    try await WorkerStorageConformance.pruneKeepsParkedWebhookEvents(Self.sqlite)
  }
}
