import Testing
import TollgateCore
import TollgateWorker

/// Pruning never takes what a reader has not read: events after a webhook endpoint's cursor,
/// parked events and those queued for redelivery, inbox items not finished, the newest
/// change-feed entry.
extension WorkerStorageConformance {
  /// With every retention long past, housekeeping's plan (events delivered through the slowest
  /// endpoint's cursor) deletes the delivered events and the finished inbox item, and nothing
  /// else: not the events after the cursor, a parked one, one queued for redelivery, a pending
  /// or claimed inbox item, nor the newest change-feed entry. A plan with no endpoint configured
  /// still keeps the parked and queued events.
  public static func pruneKeepsWhatIsUnread(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let storage = database.storage
      let other = try await database.openHandle()
      let feed = try await database.openFeed?()
      let endpoint = "hooks"
      #expect(try await storage.webhookCursor(endpoint: endpoint, nowMs: 1) == 0, "\(sut.name): a new cursor")
      // Inbox: one item pending, one claimed, one finished (by the change of the first chain).
      var items: [String: Int64] = [:]
      for key in ["claimed", "finished", "pending"] {
        items[key] = try await storage.storeNotification(route: "r", dedupeKey: key, payload: [1], nowMs: 1).id
      }
      let claims = try await storage.claimInbox(nowMs: 2, limit: 2, leaseMs: 600_000)
      let finishing = try #require(claims.first { $0.id == items["finished"] }, "\(sut.name): the oldest two claimed")
      // Six events, one per change.
      for n in 0..<6 {
        let chain = subscription("chain-\(n)", user: "user-\(n)")
        try await storage.apply(
          change(
            chain, events: [event("purchased", of: chain, atMs: 10)],
            completes: n == 0 ? InboxCompletion(finishing.claim, state: .verified, outcome: "ok") : nil),
          recompute: recompute)
      }
      let ids = try await storage.events(after: 0, limit: 100).map(\.id)
      try #require(ids.count == 6, "\(sut.name): six events")
      // The endpoint took the first two, gave up on the third (parked) and the fourth (parked,
      // then queued for redelivery); the last two it has not read.
      try await storage.advanceWebhookCursor(endpoint: endpoint, to: ids[1], nowMs: 20, lease: nil)
      let once = WebhookRetryLimit(maxAttempts: 1, maxAgeMs: 3_600_000)
      for id in [ids[2], ids[3]] {
        let failure = try await storage.recordWebhookFailure(
          endpoint: endpoint, eventId: id, error: "HTTP 500", limit: once, nowMs: 21, lease: nil)
        try #require(failure.parked, "\(sut.name): parked after one attempt")
      }
      #expect(
        try await storage.requestWebhookRedelivery(eventIds: [ids[3]], endpoint: endpoint) == 1,
        "\(sut.name): one event queued for redelivery")
      let delivered = try await storage.webhookCursor(endpoint: endpoint, nowMs: 30)
      #expect(delivered == ids[3], "\(sut.name): the cursor is past the parked events")
      let head = try await feed?.headSeq()

      let later: Int64 = 1_000_000_000
      _ = try await storage.prune(
        PrunePlan(
          finishedInboxBeforeMs: later, changeFeedBeforeMs: later, eventsBeforeMs: later,
          eventsDeliveredThroughId: delivered))

      #expect(
        try await other.events(after: 0, limit: 100).map(\.id) == Array(ids[2...]),
        "\(sut.name): the parked, the queued and the unread events stay")
      #expect(
        try await other.parkedWebhookEvents(endpoint: endpoint).map(\.eventId) == [ids[2], ids[3]],
        "\(sut.name): the parked events are still parked")
      #expect(
        try await other.inboxCounts() == ["pending": 1, "processing": 1],
        "\(sut.name): only the finished item went")
      if let feed, let head {
        #expect(try await feed.headSeq() == head, "\(sut.name): the feed's head is where it was")
        #expect(try await feed.feedMark(at: head).entry != nil, "\(sut.name): the newest entry stays")
      }

      // No endpoint configured any more: the parked and queued events still wait for a redelivery.
      _ = try await storage.prune(
        PrunePlan(
          finishedInboxBeforeMs: later, changeFeedBeforeMs: later, eventsBeforeMs: later,
          eventsDeliveredThroughId: nil))
      let kept = try await other.events(after: 0, limit: 100).map(\.id)
      #expect(kept.contains(ids[2]) && kept.contains(ids[3]), "\(sut.name): parked and queued events stay: \(kept)")
      #expect(
        try await other.dueWebhookRedeliveries(endpoint: endpoint, nowMs: 40, limit: 10).map(\.eventId) == [ids[3]],
        "\(sut.name): the queued redelivery is still due")
    }
  }

  /// An endpoint took every event and every event is past its retention: prune may delete the
  /// delivered ones, but an event written afterwards still gets an id above the endpoint's
  /// cursor, so `events(after: cursor)` hands it over (an id reused from a deleted event would
  /// sit at or below the cursor, and the endpoint would never be sent it).
  public static func pruneNeverReusesEventIds(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let storage = database.storage
      let endpoint = "hooks"
      _ = try await storage.webhookCursor(endpoint: endpoint, nowMs: 1)
      for n in 0..<3 {
        let chain = subscription("chain-\(n)", user: "user-\(n)")
        try await storage.apply(change(chain, events: [event("purchased", of: chain, atMs: 10)]), recompute: recompute)
      }
      let newest = try #require(try await storage.events(after: 0, limit: 100).last?.id)
      try await storage.advanceWebhookCursor(endpoint: endpoint, to: newest, nowMs: 20, lease: nil)
      let later: Int64 = 1_000_000_000
      _ = try await storage.prune(
        PrunePlan(
          finishedInboxBeforeMs: later, changeFeedBeforeMs: later, eventsBeforeMs: later,
          eventsDeliveredThroughId: newest))

      let chain = subscription("chain-new", user: "user-new")
      try await storage.apply(change(chain, events: [event("purchased", of: chain, atMs: 30)]), recompute: recompute)
      let cursor = try await storage.webhookCursor(endpoint: endpoint, nowMs: 40)
      let next = try await database.openHandle().events(after: cursor, limit: 10)
      #expect(
        next.map(\.event.purchaseId) == ["chain-new"],
        "\(sut.name): the event written after the prune is after the cursor (\(cursor)): \(next.map(\.id))")
    }
  }
}
