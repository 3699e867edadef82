import Testing
import TollgateCore
import TollgateWorker

/// The deliveries of a user's events (issue 29, the support console): the user's newest events
/// first, each with every endpoint's delivery as the cursors and the parked events say.
extension WorkerStorageConformance {
  /// Alice's two events and Bob's one, two endpoints: at A, Alice's first event went through after
  /// two failed attempts and her second is failing at the head; at B, her first was parked, then
  /// queued again, and her second waits. Bob's event and the unbound chain's are not hers.
  public static func webhookDeliveriesOfAUser(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let storage = database.storage
      let events = try await prepareWebhooks(storage, users: ["alice", "bob", "alice"])
      try #require(events.count == 4, "\(sut.name)")
      let (first, bobs, second) = (events[0], events[2], events[3])
      #expect(try await storage.webhookDeliveries(userId: "nobody", limit: 10).isEmpty, "\(sut.name)")

      let retry = WebhookRetryLimit(maxAttempts: 5, maxAgeMs: 10_000)
      for at in [Int64(100), 200] {
        _ = try await storage.recordWebhookFailure(
          endpoint: hookEndpoint, eventId: first.id, error: "HTTP 503", limit: retry, nowMs: at, lease: nil)
      }
      try await storage.advanceWebhookCursor(endpoint: hookEndpoint, to: bobs.id, nowMs: 300, lease: nil)
      _ = try await storage.recordWebhookFailure(
        endpoint: hookEndpoint, eventId: second.id, error: "timeout", limit: retry, nowMs: 400, lease: nil)
      _ = try await storage.recordWebhookFailure(
        endpoint: otherHookEndpoint, eventId: first.id, error: "HTTP 410",
        limit: WebhookRetryLimit(
          maxAttempts: 1, maxAgeMs: 10_000), nowMs: 500, lease: nil)

      let read = try await storage.webhookDeliveries(userId: "alice", limit: 10)
      #expect(read.map(\.event) == [second, first], "\(sut.name): Alice's events, newest first, with ids and UUIDs")
      #expect(
        read.first?.deliveries == [
          WebhookDeliveryStatus(endpoint: hookEndpoint, state: .failing, attempts: 1, firstFailedAtMs: 400),
          WebhookDeliveryStatus(endpoint: otherHookEndpoint, state: .pending),
        ], "\(sut.name)")
      #expect(
        read.last?.deliveries == [
          WebhookDeliveryStatus(endpoint: hookEndpoint, state: .delivered),
          WebhookDeliveryStatus(
            endpoint: otherHookEndpoint, state: .parked, attempts: 1, firstFailedAtMs: 500, lastError: "HTTP 410",
            parkedAtMs: 500),
        ], "\(sut.name): A's failures moved on to her second event; B parked her first")
      #expect(
        try await storage.webhookDeliveries(userId: "alice", limit: 1).map(\.event) == [second], "\(sut.name)")

      // Queued again at B; A's second event goes through after its failed attempt.
      #expect(
        try await storage.requestWebhookRedelivery(eventIds: [first.id], endpoint: otherHookEndpoint) == 1,
        "\(sut.name)")
      try await storage.advanceWebhookCursor(endpoint: hookEndpoint, to: second.id, nowMs: 600, lease: nil)
      let again = try await storage.webhookDeliveries(userId: "alice", limit: 10)
      #expect(
        again.first?.deliveries.first
          == WebhookDeliveryStatus(endpoint: hookEndpoint, state: .delivered, attempts: 1, firstFailedAtMs: 400),
        "\(sut.name): delivered after one failed attempt")
      #expect(
        again.last?.deliveries.last
          == WebhookDeliveryStatus(
            endpoint: otherHookEndpoint, state: .queued, attempts: 0, lastError: "HTTP 410", parkedAtMs: 500),
        "\(sut.name)")
    }
  }
}
