import Testing
import TollgateCore
import TollgateStorage
import TollgateTesting
import TollgateWorker
import TollgateWorkerSQLite

/// Webhook parking on SQLite (issue 24 item 12): the failed-attempt count at the head of an
/// endpoint's stream, parking with the cursor move, redelivery, the backlog, and housekeeping.
@Suite("SQLite webhook parking")
struct WebhookParkingStorageTests {
  static let endpoint = "https://hooks.example.com/a"
  static let other = "https://hooks.example.com/b"

  /// A database with `users`' purchases, one `purchased` event each, at 10, 20, ...; and an
  /// unbound chain's event between the first two.
  func storage(_ dir: TemporaryDirectory, users: [String]) async throws -> (SQLiteWorkerStorage, [StoredEvent]) {
    let storage = try SQLiteWorkerStorage(path: dir.file("db.sqlite"), nowMs: 1)
    for endpoint in [Self.endpoint, Self.other] { _ = try await storage.webhookCursor(endpoint: endpoint, nowMs: 1) }
    var owners: [String?] = users
    owners.insert(nil, at: 1)
    for (index, user) in owners.enumerated() {
      let at = Int64(index + 1) * 10
      let purchaseId = "otx-\(index)"
      let history = SubscriptionHistory(
        store: .appStore, purchaseId: purchaseId, environment: .sandbox,
        transactions: [
          StoreTransaction(
            transactionId: "\(purchaseId)-1", productId: "monthly", purchaseDateMs: 0, expiresDateMs: 1_000_000)
        ],
        renewalInfo: RenewalInfo(willAutoRenew: true), asOfMs: 0)
      let subscription = StoredSubscription(
        store: .appStore, purchaseId: purchaseId, appId: "com.example", userId: user, history: history,
        evidence: VerificationEvidence(source: "test", environment: .sandbox, payloads: [], verifiedAtMs: at),
        state: .active, reason: "current_period", productId: "monthly", willRenew: true, expiresAtMs: 1_000_000,
        accessEndsAtMs: 1_000_000, appAccountToken: nil, verifiedAtMs: at, nextCheckAtMs: 1_000_000)
      try await storage.apply(
        SubscriptionChange(
          subscription: subscription, transactions: [],
          events: [
            WorkerEvent(
              userId: user, kind: "purchased", store: .appStore, purchaseId: purchaseId, productId: "monthly",
              state: .active, atMs: at)
          ], completes: nil, alsoRecompute: nil, reason: "t", nowMs: at),
        recompute: { userId, subscriptions, _ in
          subscriptions.map { .sample(userId: userId, source: $0.history.source, expiresAtMs: $0.expiresAtMs) }
        })
    }
    return (storage, try await storage.events(after: 0, limit: 100))
  }

  @Test("failures at the head are counted per event; at the limit the event is parked and the cursor moves past it")
  func parksAtTheLimit() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let (storage, events) = try await storage(dir, users: ["alice", "bob"])
    let limit = WebhookRetryLimit(maxAttempts: 3, maxAgeMs: 10_000)
    let first = events[0].id
    var record = try await storage.recordWebhookFailure(
      endpoint: Self.endpoint, eventId: first, error: "HTTP 500", limit: limit, nowMs: 100)
    #expect(record == WebhookFailureRecord(attempts: 1, firstFailedAtMs: 100, parked: false))
    record = try await storage.recordWebhookFailure(
      endpoint: Self.endpoint, eventId: first, error: "HTTP 500", limit: limit, nowMs: 200)
    #expect(record == WebhookFailureRecord(attempts: 2, firstFailedAtMs: 100, parked: false))
    #expect(try await storage.webhookCursor(endpoint: Self.endpoint, nowMs: 200) == 0)
    #expect(try await storage.parkedWebhookEvents(endpoint: nil).isEmpty)
    record = try await storage.recordWebhookFailure(
      endpoint: Self.endpoint, eventId: first, error: "HTTP 500", limit: limit, nowMs: 300)
    #expect(record == WebhookFailureRecord(attempts: 3, firstFailedAtMs: 100, parked: true))
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
    record = try await storage.recordWebhookFailure(
      endpoint: Self.endpoint, eventId: third, error: "timeout", limit: limit, nowMs: 1_000)
    #expect(record == WebhookFailureRecord(attempts: 1, firstFailedAtMs: 1_000, parked: false))
    record = try await storage.recordWebhookFailure(
      endpoint: Self.endpoint, eventId: third, error: "timeout", limit: limit, nowMs: 11_000)
    #expect(record.parked)
    #expect(try await storage.parkedWebhookEvents(endpoint: Self.endpoint).map(\.eventId) == [first, third])
  }

  @Test("redelivery: queued by id or all, due at once, gone once delivered, parked again at the limit")
  func redelivery() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let (storage, events) = try await storage(dir, users: ["alice", "bob"])
    let limit = WebhookRetryLimit(maxAttempts: 1, maxAgeMs: 10_000)
    for event in [events[0], events[2]] {
      _ = try await storage.recordWebhookFailure(
        endpoint: Self.endpoint, eventId: event.id, error: "HTTP 400", limit: limit, nowMs: 100)
    }
    #expect(try await storage.dueWebhookRedeliveries(endpoint: Self.endpoint, nowMs: 1_000, limit: 10).isEmpty)
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
      nowMs: 1_000)
    #expect(try await storage.dueWebhookRedeliveries(endpoint: Self.endpoint, nowMs: 1_500, limit: 10).isEmpty)
    #expect(try await storage.dueWebhookRedeliveries(endpoint: Self.endpoint, nowMs: 2_000, limit: 10).count == 1)
    try await storage.finishWebhookRedelivery(
      endpoint: Self.endpoint, eventId: events[2].id, error: "HTTP 500", limit: retryLimit, retryAtMs: 4_000,
      nowMs: 2_000)
    let parked = try await storage.parkedWebhookEvents(endpoint: Self.endpoint)
    #expect(parked.map(\.queued) == [false, false])
    #expect(parked.last?.attempts == 2 && parked.last?.parkedAtMs == 2_000)

    // --all, then delivered: gone.
    #expect(try await storage.requestWebhookRedelivery(eventIds: nil, endpoint: Self.endpoint) == 2)
    for entry in try await storage.dueWebhookRedeliveries(endpoint: Self.endpoint, nowMs: 3_000, limit: 10) {
      try await storage.finishWebhookRedelivery(
        endpoint: Self.endpoint, eventId: entry.eventId, error: nil, limit: retryLimit, retryAtMs: 0, nowMs: 3_000)
    }
    #expect(try await storage.parkedWebhookEvents(endpoint: nil).isEmpty)
  }

  @Test("the backlog counts what the endpoint takes after its cursor and its queued redeliveries; parked apart")
  func backlog() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let (storage, events) = try await storage(dir, users: ["alice", "bob", "carol"])
    // alice 10, (unbound 20), bob 30, carol 40.
    #expect(
      try await storage.webhookBacklog(endpoint: Self.endpoint, kinds: nil)
        == WebhookBacklog(undelivered: 3, oldestUndeliveredAtMs: 10, parked: 0))
    #expect(try await storage.webhookBacklog(endpoint: Self.endpoint, kinds: ["renewed"]) == WebhookBacklog())
    #expect(try await storage.webhookBacklog(endpoint: "https://never.example.com", kinds: nil) == WebhookBacklog())
    _ = try await storage.recordWebhookFailure(
      endpoint: Self.endpoint, eventId: events[0].id, error: "HTTP 500",
      limit: WebhookRetryLimit(maxAttempts: 1, maxAgeMs: 1_000), nowMs: 50)
    #expect(
      try await storage.webhookBacklog(endpoint: Self.endpoint, kinds: nil)
        == WebhookBacklog(undelivered: 2, oldestUndeliveredAtMs: 30, parked: 1))
    _ = try await storage.requestWebhookRedelivery(eventIds: nil, endpoint: nil)
    #expect(
      try await storage.webhookBacklog(endpoint: Self.endpoint, kinds: ["purchased"])
        == WebhookBacklog(undelivered: 3, oldestUndeliveredAtMs: 10, parked: 0))
  }

  @Test("housekeeping never deletes a parked event")
  func pruneKeepsParked() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let (storage, events) = try await storage(dir, users: ["alice", "bob"])
    _ = try await storage.recordWebhookFailure(
      endpoint: Self.endpoint, eventId: events[0].id, error: "HTTP 500",
      limit: WebhookRetryLimit(maxAttempts: 1, maxAgeMs: 1_000), nowMs: 50)
    let counts = try await storage.prune(
      PrunePlan(
        finishedInboxBeforeMs: 0, changeFeedBeforeMs: 0, eventsBeforeMs: 1_000, eventsDeliveredThroughId: nil))
    // The parked one stays, and so does the newest (event ids are never handed out again).
    #expect(counts.events == events.count - 2)
    #expect(try await storage.events(after: 0, limit: 10).map(\.id) == [events[0].id, events[events.count - 1].id])
    #expect(try await storage.event(id: events[0].id)?.eventId == events[0].eventId)
  }
}
