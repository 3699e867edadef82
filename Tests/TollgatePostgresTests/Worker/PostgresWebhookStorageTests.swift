import Testing
import TollgateCore
import TollgateStorage
import TollgateTesting
import TollgateWorker
import TollgateWorkerPostgres

/// Webhook bookkeeping on PostgreSQL, as on SQLite (`WebhookParkingStorageTests`): the failed
/// attempts at the head of an endpoint's stream, parking with the cursor move, redelivery, the
/// backlog, and housekeeping that keeps parked events.
@Suite("PostgreSQL webhook storage")
struct PostgresWebhookStorageTests {
  static let endpoint = "https://hooks.example.com/a"
  static let other = "https://hooks.example.com/b"

  /// Cursors for both endpoints, then `users`' purchases, one `purchased` event each, at 10, 20,
  /// ...; and an unbound chain's event between the first two.
  func prepare(_ storage: PostgresWorkerStorage, users: [String]) async throws -> [StoredEvent] {
    for endpoint in [Self.endpoint, Self.other] { _ = try await storage.webhookCursor(endpoint: endpoint, nowMs: 1) }
    var owners: [String?] = users
    owners.insert(nil, at: 1)
    for (index, user) in owners.enumerated() {
      try await storage.apply(
        PostgresWorkerDatabase.purchase("otx-\(index)", user: user, at: Int64(index + 1) * 10),
        recompute: PostgresWorkerDatabase.chainRecompute)
    }
    return try await storage.events(after: 0, limit: 100)
  }

  @Test("failures at the head are counted per event; at the limit the event is parked and the cursor moves past it")
  func parksAtTheLimit() async throws {
    try await PostgresWorkerDatabase.withStorage { storage in
      let events = try await prepare(storage, users: ["alice", "bob"])
      let limit = WebhookRetryLimit(maxAttempts: 3, maxAgeMs: 10_000)
      let first = events[0].id
      func fail(_ eventId: Int64, _ error: String, at nowMs: Int64) async throws -> WebhookFailureRecord {
        try await storage.recordWebhookFailure(
          endpoint: Self.endpoint, eventId: eventId, error: error, limit: limit, nowMs: nowMs, lease: nil)
      }
      #expect(
        try await fail(first, "HTTP 500", at: 100)
          == WebhookFailureRecord(attempts: 1, firstFailedAtMs: 100, parked: false))
      #expect(
        try await fail(first, "HTTP 500", at: 200)
          == WebhookFailureRecord(attempts: 2, firstFailedAtMs: 100, parked: false))
      #expect(try await storage.webhookCursor(endpoint: Self.endpoint, nowMs: 200) == 0)
      #expect(try await storage.parkedWebhookEvents(endpoint: nil).isEmpty)
      #expect(
        try await fail(first, "HTTP 500", at: 300)
          == WebhookFailureRecord(attempts: 3, firstFailedAtMs: 100, parked: true))
      #expect(try await storage.webhookCursor(endpoint: Self.endpoint, nowMs: 300) == first, "the stream moves on")
      #expect(try await storage.webhookCursor(endpoint: Self.other, nowMs: 300) == 0, "for this endpoint alone")
      #expect(
        try await storage.parkedWebhookEvents(endpoint: nil) == [
          ParkedWebhookEvent(
            endpoint: Self.endpoint, eventId: first, attempts: 3, firstFailedAtMs: 100, parkedAtMs: 300,
            lastError: "HTTP 500", queued: false)
        ])
      #expect(try await storage.parkedWebhookEvents(endpoint: Self.other).isEmpty)

      // Another event starts its own count; the age limit parks it however few its attempts.
      let third = events[2].id
      #expect(
        try await fail(third, "timeout", at: 1_000)
          == WebhookFailureRecord(attempts: 1, firstFailedAtMs: 1_000, parked: false))
      #expect(try await fail(third, "timeout", at: 11_000).parked)
      #expect(try await storage.parkedWebhookEvents(endpoint: Self.endpoint).map(\.eventId) == [first, third])
    }
  }

  @Test("redelivery: queued by id or all, due at once, gone once delivered, parked again at the limit")
  func redelivery() async throws {
    try await PostgresWorkerDatabase.withStorage { storage in
      let events = try await prepare(storage, users: ["alice", "bob"])
      let limit = WebhookRetryLimit(maxAttempts: 1, maxAgeMs: 10_000)
      for event in [events[0], events[2]] {
        _ = try await storage.recordWebhookFailure(
          endpoint: Self.endpoint, eventId: event.id, error: "HTTP 400", limit: limit, nowMs: 100, lease: nil)
      }
      #expect(try await storage.dueWebhookRedeliveries(endpoint: Self.endpoint, nowMs: 1_000, limit: 10).isEmpty)
      #expect(try await storage.requestWebhookRedelivery(eventIds: [], endpoint: nil) == 0)
      #expect(try await storage.requestWebhookRedelivery(eventIds: [events[2].id], endpoint: Self.other) == 0)
      #expect(try await storage.requestWebhookRedelivery(eventIds: [events[2].id], endpoint: nil) == 1)
      let due = try await storage.dueWebhookRedeliveries(endpoint: Self.endpoint, nowMs: 1_000, limit: 10)
      #expect(due.map(\.eventId) == [events[2].id])
      #expect(due.first?.queued == true && due.first?.attempts == 0)
      #expect(try await storage.webhookBacklog(endpoint: Self.endpoint, kinds: nil).parked == 1)

      // Refused again: tried later, then parked again once the limit is reached.
      let retryLimit = WebhookRetryLimit(maxAttempts: 2, maxAgeMs: 10_000)
      try await storage.finishWebhookRedelivery(
        endpoint: Self.endpoint, eventId: events[2].id, error: "HTTP 500", limit: retryLimit, retryAtMs: 2_000,
        nowMs: 1_000, lease: nil)
      #expect(try await storage.dueWebhookRedeliveries(endpoint: Self.endpoint, nowMs: 1_500, limit: 10).isEmpty)
      #expect(try await storage.dueWebhookRedeliveries(endpoint: Self.endpoint, nowMs: 2_000, limit: 10).count == 1)
      try await storage.finishWebhookRedelivery(
        endpoint: Self.endpoint, eventId: events[2].id, error: "HTTP 500", limit: retryLimit, retryAtMs: 4_000,
        nowMs: 2_000, lease: nil)
      let parked = try await storage.parkedWebhookEvents(endpoint: Self.endpoint)
      #expect(parked.map(\.queued) == [false, false])
      #expect(parked.last?.attempts == 2 && parked.last?.parkedAtMs == 2_000)
      #expect(parked.last?.lastError == "HTTP 500")

      // --all, then delivered: gone.
      #expect(try await storage.requestWebhookRedelivery(eventIds: nil, endpoint: Self.endpoint) == 2)
      for entry in try await storage.dueWebhookRedeliveries(endpoint: Self.endpoint, nowMs: 3_000, limit: 10) {
        try await storage.finishWebhookRedelivery(
          endpoint: Self.endpoint, eventId: entry.eventId, error: nil, limit: retryLimit, retryAtMs: 0, nowMs: 3_000,
          lease: nil)
      }
      #expect(try await storage.parkedWebhookEvents(endpoint: nil).isEmpty)
    }
  }

  @Test("the backlog counts what the endpoint takes after its cursor and its queued redeliveries; parked apart")
  func backlog() async throws {
    try await PostgresWorkerDatabase.withStorage { storage in
      let events = try await prepare(storage, users: ["alice", "bob", "carol"])
      // alice 10, (unbound 20), bob 30, carol 40.
      #expect(
        try await storage.webhookBacklog(endpoint: Self.endpoint, kinds: nil)
          == WebhookBacklog(undelivered: 3, oldestUndeliveredAtMs: 10, parked: 0))
      #expect(try await storage.webhookBacklog(endpoint: Self.endpoint, kinds: ["renewed"]) == WebhookBacklog())
      #expect(try await storage.webhookBacklog(endpoint: Self.endpoint, kinds: []) == WebhookBacklog())
      #expect(try await storage.webhookBacklog(endpoint: "https://never.example.com", kinds: nil) == WebhookBacklog())
      _ = try await storage.recordWebhookFailure(
        endpoint: Self.endpoint, eventId: events[0].id, error: "HTTP 500",
        limit: WebhookRetryLimit(maxAttempts: 1, maxAgeMs: 1_000), nowMs: 50, lease: nil)
      #expect(
        try await storage.webhookBacklog(endpoint: Self.endpoint, kinds: nil)
          == WebhookBacklog(undelivered: 2, oldestUndeliveredAtMs: 30, parked: 1))
      _ = try await storage.requestWebhookRedelivery(eventIds: nil, endpoint: nil)
      #expect(
        try await storage.webhookBacklog(endpoint: Self.endpoint, kinds: ["purchased"])
          == WebhookBacklog(undelivered: 3, oldestUndeliveredAtMs: 10, parked: 0))
    }
  }

  @Test("housekeeping never deletes a parked event, nor the newest, nor one an endpoint has not acknowledged")
  func pruneKeepsParked() async throws {
    try await PostgresWorkerDatabase.withStorage { storage in
      let events = try await prepare(storage, users: ["alice", "bob", "carol"])
      _ = try await storage.recordWebhookFailure(
        endpoint: Self.endpoint, eventId: events[0].id, error: "HTTP 500",
        limit: WebhookRetryLimit(maxAttempts: 1, maxAgeMs: 1_000), nowMs: 50, lease: nil)
      // Acknowledged through the second-newest only: the newest two stay either way.
      var counts = try await storage.prune(
        PrunePlan(
          finishedInboxBeforeMs: 0, changeFeedBeforeMs: 0, eventsBeforeMs: 1_000,
          eventsDeliveredThroughId: events[1].id))
      #expect(counts.events == 1)
      #expect(try await storage.events(after: 0, limit: 10).map(\.id) == [events[0].id] + events[2...].map(\.id))
      counts = try await storage.prune(
        PrunePlan(
          finishedInboxBeforeMs: 0, changeFeedBeforeMs: 1_000, eventsBeforeMs: 1_000, eventsDeliveredThroughId: nil))
      // The parked one stays, and so does the newest (event ids are never handed out again).
      #expect(counts.events == events.count - 3)
      #expect(counts.changeFeed > 0)
      let left = try await storage.events(after: 0, limit: 10)
      #expect(left.map(\.id) == [events[0].id, events[events.count - 1].id])
      #expect(left.first?.eventId == events[0].eventId)
      // The next event's id is above every id handed out before.
      _ = try await storage.addGrant(
        userId: "dave", entitlement: "premium", expiresAtMs: 9_000, note: nil, actor: nil, nowMs: 60,
        recompute: PostgresWorkerDatabase.grantRecompute)
      #expect(try await storage.events(after: events[events.count - 1].id, limit: 10).map(\.event.userId) == ["dave"])
    }
  }
}
