import Testing
import TollgateCore
import TollgateWorker

/// Webhook bookkeeping (issue 24 item 12): the failed attempts at the head of an endpoint's
/// stream, parking with the cursor move, redelivery, the backlog, and housekeeping that keeps
/// parked events.
extension WorkerStorageConformance {
  static let hookEndpoint = "https://hooks.example.com/a"
  static let otherHookEndpoint = "https://hooks.example.com/b"

  /// Cursors for both endpoints, then `users`' purchases, one `purchased` event each, at 10, 20,
  /// ...; and an unbound chain's event between the first two.
  static func prepareWebhooks(_ storage: any WorkerStorage, users: [String]) async throws -> [StoredEvent] {
    for endpoint in [hookEndpoint, otherHookEndpoint] {
      _ = try await storage.webhookCursor(endpoint: endpoint, nowMs: 1)
    }
    var owners: [String?] = users
    owners.insert(nil, at: 1)
    for (index, user) in owners.enumerated() {
      let at = Int64(index + 1) * 10
      let chain = subscription("otx-\(index)", user: user, verifiedAtMs: at)
      try await storage.apply(
        change(chain, events: [event("purchased", of: chain, atMs: at)], nowMs: at), recompute: recompute)
    }
    return try await storage.events(after: 0, limit: 100)
  }

  /// Failures at the head are counted per event; at the limit the event is parked and the cursor
  /// moves past it, for that endpoint alone; the age limit parks however few the attempts.
  public static func webhookParksAtTheLimit(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let storage = database.storage
      let events = try await prepareWebhooks(storage, users: ["alice", "bob"])
      let limit = WebhookRetryLimit(maxAttempts: 3, maxAgeMs: 10_000)
      let first = events[0].id
      func fail(_ eventId: Int64, _ error: String, at nowMs: Int64) async throws -> WebhookFailureRecord {
        try await storage.recordWebhookFailure(
          endpoint: hookEndpoint, eventId: eventId, error: error, limit: limit, nowMs: nowMs, lease: nil)
      }
      #expect(
        try await fail(first, "HTTP 500", at: 100)
          == WebhookFailureRecord(attempts: 1, firstFailedAtMs: 100, parked: false), "\(sut.name)")
      #expect(
        try await fail(first, "HTTP 500", at: 200)
          == WebhookFailureRecord(attempts: 2, firstFailedAtMs: 100, parked: false), "\(sut.name)")
      #expect(try await storage.webhookCursor(endpoint: hookEndpoint, nowMs: 200) == 0, "\(sut.name)")
      #expect(try await storage.parkedWebhookEvents(endpoint: nil).isEmpty, "\(sut.name)")
      #expect(
        try await fail(first, "HTTP 500", at: 300)
          == WebhookFailureRecord(attempts: 3, firstFailedAtMs: 100, parked: true), "\(sut.name)")
      #expect(
        try await storage.webhookCursor(endpoint: hookEndpoint, nowMs: 300) == first, "\(sut.name): the stream moves on"
      )
      #expect(
        try await storage.webhookCursor(endpoint: otherHookEndpoint, nowMs: 300) == 0,
        "\(sut.name): for this endpoint alone")
      #expect(
        try await storage.parkedWebhookEvents(endpoint: nil) == [
          ParkedWebhookEvent(
            endpoint: hookEndpoint, eventId: first, attempts: 3, firstFailedAtMs: 100, parkedAtMs: 300,
            lastError: "HTTP 500", queued: false)
        ], "\(sut.name)")
      #expect(try await storage.parkedWebhookEvents(endpoint: otherHookEndpoint).isEmpty, "\(sut.name)")

      // Another event starts its own count; the age limit parks it however few its attempts.
      let third = events[2].id
      #expect(
        try await fail(third, "timeout", at: 1_000)
          == WebhookFailureRecord(attempts: 1, firstFailedAtMs: 1_000, parked: false), "\(sut.name)")
      #expect(try await fail(third, "timeout", at: 11_000).parked, "\(sut.name): parked by age")
      #expect(
        try await storage.parkedWebhookEvents(endpoint: hookEndpoint).map(\.eventId) == [first, third], "\(sut.name)")
    }
  }

  /// Redelivery: queued by id or all, due at once, gone once delivered, parked again at the limit.
  public static func webhookRedelivery(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let storage = database.storage
      let events = try await prepareWebhooks(storage, users: ["alice", "bob"])
      let limit = WebhookRetryLimit(maxAttempts: 1, maxAgeMs: 10_000)
      for event in [events[0], events[2]] {
        _ = try await storage.recordWebhookFailure(
          endpoint: hookEndpoint, eventId: event.id, error: "HTTP 400", limit: limit, nowMs: 100, lease: nil)
      }
      #expect(
        try await storage.dueWebhookRedeliveries(endpoint: hookEndpoint, nowMs: 1_000, limit: 10).isEmpty, "\(sut.name)"
      )
      #expect(try await storage.requestWebhookRedelivery(eventIds: [], endpoint: nil) == 0, "\(sut.name)")
      #expect(
        try await storage.requestWebhookRedelivery(eventIds: [events[2].id], endpoint: otherHookEndpoint) == 0,
        "\(sut.name)")
      #expect(try await storage.requestWebhookRedelivery(eventIds: [events[2].id], endpoint: nil) == 1, "\(sut.name)")
      let due = try await storage.dueWebhookRedeliveries(endpoint: hookEndpoint, nowMs: 1_000, limit: 10)
      #expect(due.map(\.eventId) == [events[2].id], "\(sut.name)")
      #expect(due.first?.queued == true && due.first?.attempts == 0, "\(sut.name)")
      #expect(try await storage.webhookBacklog(endpoint: hookEndpoint, kinds: nil).parked == 1, "\(sut.name)")

      // Refused again: tried later, then parked again once the limit is reached.
      let retryLimit = WebhookRetryLimit(maxAttempts: 2, maxAgeMs: 10_000)
      try await storage.finishWebhookRedelivery(
        endpoint: hookEndpoint, eventId: events[2].id, error: "HTTP 500", limit: retryLimit, retryAtMs: 2_000,
        nowMs: 1_000, lease: nil)
      #expect(
        try await storage.dueWebhookRedeliveries(endpoint: hookEndpoint, nowMs: 1_500, limit: 10).isEmpty, "\(sut.name)"
      )
      #expect(
        try await storage.dueWebhookRedeliveries(endpoint: hookEndpoint, nowMs: 2_000, limit: 10).count == 1,
        "\(sut.name)")
      try await storage.finishWebhookRedelivery(
        endpoint: hookEndpoint, eventId: events[2].id, error: "HTTP 500", limit: retryLimit, retryAtMs: 4_000,
        nowMs: 2_000, lease: nil)
      let parked = try await storage.parkedWebhookEvents(endpoint: hookEndpoint)
      #expect(parked.map(\.queued) == [false, false], "\(sut.name)")
      #expect(parked.last?.attempts == 2 && parked.last?.parkedAtMs == 2_000, "\(sut.name)")
      #expect(parked.last?.lastError == "HTTP 500", "\(sut.name)")

      // --all, then delivered: gone.
      #expect(try await storage.requestWebhookRedelivery(eventIds: nil, endpoint: hookEndpoint) == 2, "\(sut.name)")
      for entry in try await storage.dueWebhookRedeliveries(endpoint: hookEndpoint, nowMs: 3_000, limit: 10) {
        try await storage.finishWebhookRedelivery(
          endpoint: hookEndpoint, eventId: entry.eventId, error: nil, limit: retryLimit, retryAtMs: 0, nowMs: 3_000,
          lease: nil)
      }
      #expect(try await storage.parkedWebhookEvents(endpoint: nil).isEmpty, "\(sut.name)")
    }
  }

  /// The backlog counts what the endpoint takes after its cursor and its queued redeliveries;
  /// parked ones apart.
  public static func webhookBacklogCounts(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let storage = database.storage
      let events = try await prepareWebhooks(storage, users: ["alice", "bob", "carol"])
      // alice 10, (unbound 20), bob 30, carol 40.
      #expect(
        try await storage.webhookBacklog(endpoint: hookEndpoint, kinds: nil)
          == WebhookBacklog(undelivered: 3, oldestUndeliveredAtMs: 10, parked: 0), "\(sut.name)")
      #expect(try await storage.webhookBacklog(endpoint: hookEndpoint, kinds: ["renewed"]) == WebhookBacklog())
      #expect(try await storage.webhookBacklog(endpoint: hookEndpoint, kinds: []) == WebhookBacklog(), "\(sut.name)")
      #expect(
        try await storage.webhookBacklog(endpoint: "https://never.example.com", kinds: nil) == WebhookBacklog(),
        "\(sut.name)")
      _ = try await storage.recordWebhookFailure(
        endpoint: hookEndpoint, eventId: events[0].id, error: "HTTP 500",
        limit: WebhookRetryLimit(maxAttempts: 1, maxAgeMs: 1_000), nowMs: 50, lease: nil)
      #expect(
        try await storage.webhookBacklog(endpoint: hookEndpoint, kinds: nil)
          == WebhookBacklog(undelivered: 2, oldestUndeliveredAtMs: 30, parked: 1), "\(sut.name)")
      _ = try await storage.requestWebhookRedelivery(eventIds: nil, endpoint: nil)
      #expect(
        try await storage.webhookBacklog(endpoint: hookEndpoint, kinds: ["purchased"])
          == WebhookBacklog(undelivered: 3, oldestUndeliveredAtMs: 10, parked: 0), "\(sut.name)")
    }
  }

  /// Housekeeping never deletes a parked event, nor the newest, nor one an endpoint has not
  /// acknowledged; the next event's id is above every id handed out before.
  public static func pruneKeepsParkedWebhookEvents(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let storage = database.storage
      let events = try await prepareWebhooks(storage, users: ["alice", "bob", "carol"])
      _ = try await storage.recordWebhookFailure(
        endpoint: hookEndpoint, eventId: events[0].id, error: "HTTP 500",
        limit: WebhookRetryLimit(maxAttempts: 1, maxAgeMs: 1_000), nowMs: 50, lease: nil)
      // Acknowledged through the second-newest only: the newest two stay either way.
      var counts = try await storage.prune(
        PrunePlan(
          finishedInboxBeforeMs: 0, changeFeedBeforeMs: 0, eventsBeforeMs: 1_000,
          eventsDeliveredThroughId: events[1].id))
      #expect(counts.events == 1, "\(sut.name)")
      #expect(
        try await storage.events(after: 0, limit: 10).map(\.id) == [events[0].id] + events[2...].map(\.id),
        "\(sut.name)")
      counts = try await storage.prune(
        PrunePlan(
          finishedInboxBeforeMs: 0, changeFeedBeforeMs: 1_000, eventsBeforeMs: 1_000, eventsDeliveredThroughId: nil))
      // The parked one stays, and so does the newest (event ids are never handed out again).
      #expect(counts.events == events.count - 3, "\(sut.name)")
      #expect(counts.changeFeed > 0, "\(sut.name)")
      let left = try await storage.events(after: 0, limit: 10)
      #expect(left.map(\.id) == [events[0].id, events[events.count - 1].id], "\(sut.name)")
      #expect(left.first?.eventId == events[0].eventId, "\(sut.name)")
      // The next event's id is above every id handed out before.
      _ = try await storage.addGrant(
        userId: "dave", entitlement: "premium", expiresAtMs: 9_000, note: nil, actor: nil, nowMs: 60,
        recompute: recompute)
      #expect(
        try await storage.events(after: events[events.count - 1].id, limit: 10).map(\.event.userId) == ["dave"],
        "\(sut.name)")
    }
  }
}
