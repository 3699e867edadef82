import Testing
import TollgateTesting

// MARK: Webhook parking, redelivery, backlog

extension PostgresStorageConformanceTests {
  @Test func webhookParksAtTheLimit() async throws {
    try await WorkerStorageConformance.webhookParksAtTheLimit(Self.postgres)
  }

  @Test func webhookRedelivery() async throws {
    try await WorkerStorageConformance.webhookRedelivery(Self.postgres)
  }

  @Test func webhookBacklogCounts() async throws {
    try await WorkerStorageConformance.webhookBacklogCounts(Self.postgres)
  }

  @Test func pruneKeepsParkedWebhookEvents() async throws {
    try await WorkerStorageConformance.pruneKeepsParkedWebhookEvents(Self.postgres)
  }
}
