import Testing
import TollgateTesting

// MARK: The deliveries of a user's events (the support console)

extension FakeStorageConformanceTests {
  @Test func webhookDeliveriesOfAUser() async throws {
    try await WorkerStorageConformance.webhookDeliveriesOfAUser(Self.fake)
  }
}
