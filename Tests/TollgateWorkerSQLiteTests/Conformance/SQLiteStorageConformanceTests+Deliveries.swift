import Testing
import TollgateTesting

// MARK: The deliveries of a user's events (the support console)

extension SQLiteStorageConformanceTests {
  @Test func webhookDeliveriesOfAUser() async throws {
    try await WorkerStorageConformance.webhookDeliveriesOfAUser(Self.sqlite)
  }
}
