import Testing
import TollgateTesting

// MARK: The deliveries of a user's events (the support console)

extension PostgresStorageConformanceTests {
  @Test func webhookDeliveriesOfAUser() async throws {
    try await WorkerStorageConformance.webhookDeliveriesOfAUser(Self.postgres)
  }
}
