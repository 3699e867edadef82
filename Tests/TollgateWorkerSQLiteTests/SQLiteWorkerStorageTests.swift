import Testing
import TollgateCore
import TollgateSQLite
import TollgateStorage
import TollgateTesting
import TollgateWorker

@testable import TollgateWorkerSQLite

/// SQLite's worker storage beyond the storage conformance suite (`WorkerStorageConformance`, run on
/// SQLite by `SQLiteStorageConformanceTests`), which holds the inbox's deduplication and claims.
@Suite("SQLite worker storage")
struct SQLiteWorkerStorageTests {
  func history(_ id: String, expires: Int64) -> SubscriptionHistory {
    SubscriptionHistory(
      store: .appStore, purchaseId: id, environment: .sandbox,
      transactions: [
        StoreTransaction(transactionId: "\(id)-1", productId: "monthly", purchaseDateMs: 0, expiresDateMs: expires)
      ],
      renewalInfo: RenewalInfo(willAutoRenew: true), asOfMs: 0)
  }

  func stored(_ id: String, user: String?, expires: Int64 = 1_000) -> StoredSubscription {
    StoredSubscription(
      store: .appStore, purchaseId: id, appId: "com.example", userId: user, history: history(id, expires: expires),
      evidence: VerificationEvidence(source: "test", environment: .sandbox, payloads: [], verifiedAtMs: 5),
      state: .active,
      reason: "current_period", productId: "monthly", willRenew: true, expiresAtMs: expires, accessEndsAtMs: expires,
      appAccountToken: nil, verifiedAtMs: 5, nextCheckAtMs: expires)
  }

  let recompute: EntitlementRecompute = { userId, subscriptions, _ in
    subscriptions.map { .sample(userId: userId, source: $0.history.source, expiresAtMs: $0.expiresAtMs) }
  }

  @Test("the worker's connection keeps 32 MiB of pages (SQLite's default is 2)")
  func pageCache() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let storage = try SQLiteWorkerStorage(path: dir.file("worker.sqlite"), nowMs: 1)
    let size = try storage.writer.readSync { try $0.prepare("PRAGMA cache_size").rows { $0.int64(at: 0) }.first }
    #expect(size == -32_768)
  }

  @Test("apply writes the subscription, entitlements, change feed, events and inbox completion together")
  func applyIsAtomic() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("db.sqlite")
    let storage = try SQLiteWorkerStorage(path: path, nowMs: 1)
    let entitlements = try SQLiteEntitlementStorage(path: path, nowMs: 1)
    let (inboxId, _) = try await storage.storeNotification(route: "r", dedupeKey: "k", payload: [1], nowMs: 1)
    let claimed = try await storage.claimInbox(nowMs: 1, limit: 1, leaseMs: 60_000)
    #expect(claimed.map(\.id) == [inboxId])
    let changes = try await storage.apply(
      SubscriptionChange(
        subscription: stored("otx", user: "alice"), transactions: [],
        events: [
          WorkerEvent(
            userId: "alice", kind: "purchased", store: .appStore, purchaseId: "otx", productId: "monthly",
            state: .active, atMs: 9)
        ], completes: InboxCompletion(claimed[0].claim, state: .verified, outcome: "ok"), alsoRecompute: nil,
        reason: "test", nowMs: 9),
      recompute: recompute)
    #expect(changes["alice"]?.before == [])
    #expect(changes["alice"]?.after.count == 1)
    #expect(try await entitlements.entitlements(forUsers: ["alice"])["alice"]?.count == 1)
    #expect(try await entitlements.changes(after: 0, limit: 10).map(\.userId) == ["alice"])
    #expect(try await storage.events(userId: "alice").map(\.kind) == ["purchased"])
    #expect(try await storage.inboxCounts() == ["verified": 1])
    #expect(try await storage.subscription(store: .appStore, purchaseId: "otx")?.userId == "alice")

    // A transfer: bob becomes the owner; alice's entitlements are recomputed to nothing.
    try await storage.apply(
      SubscriptionChange(
        subscription: stored("otx", user: "bob"), transactions: [], events: [], completes: nil, alsoRecompute: "alice",
        reason: "transfer", nowMs: 10, expectedVersion: 1),
      recompute: recompute)
    let now = try await entitlements.entitlements(forUsers: ["alice", "bob"])
    #expect(now["alice"] == nil)
    #expect(now["bob"]?.count == 1)
  }

  @Test("due subscriptions come back by next check; postponing moves them")
  func schedule() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let storage = try SQLiteWorkerStorage(path: dir.file("db.sqlite"), nowMs: 1)
    for (id, expires) in [("a", Int64(100)), ("b", 200)] {
      try await storage.apply(
        SubscriptionChange(
          subscription: stored(id, user: "u", expires: expires), transactions: [], events: [], completes: nil,
          alsoRecompute: nil, reason: "t", nowMs: 1),
        recompute: recompute)
    }
    let a = try await storage.claimDueChecks(nowMs: 150, limit: 10, leaseMs: 50)
    #expect(a.map(\.subscription.purchaseId) == ["a"])
    try await storage.postponeCheck(
      store: .appStore, purchaseId: "a", claimToken: a.first?.claimToken, untilMs: 1_000, failures: 1)
    let b = try await storage.claimDueChecks(nowMs: 250, limit: 10, leaseMs: 50)
    #expect(b.map(\.subscription.purchaseId) == ["b"])
    #expect(try await storage.requestReverify(userId: "u", nowMs: 300) == 2)
    #expect(try await storage.claimDueChecks(nowMs: 300, limit: 10, leaseMs: 50).count == 2)
  }

  @Test("the store's user id is kept with a chain and finds the user bound most recently")
  func storeUserId() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let storage = try SQLiteWorkerStorage(path: dir.file("db.sqlite"), nowMs: 1)
    for (id, user, at) in [("r1", "alice", Int64(1)), ("r2", "carol", 2), ("r3", nil, 3)] as [(String, String?, Int64)]
    {
      var subscription = stored(id, user: user)
      subscription.storeUserId = "amzn-1"
      try await storage.apply(
        SubscriptionChange(
          subscription: subscription, transactions: [], events: [], completes: nil, alsoRecompute: nil, reason: "t",
          nowMs: at),
        recompute: recompute)
    }
    #expect(try await storage.subscription(store: .appStore, purchaseId: "r1")?.storeUserId == "amzn-1")
    #expect(try await storage.user(store: .appStore, storeUserId: "amzn-1") == "carol")
    #expect(try await storage.user(store: .appStore, storeUserId: "amzn-2") == nil)
    #expect(try await storage.user(store: .amazon, storeUserId: "amzn-1") == nil)
  }

  @Test("housekeeping deletes finished inbox items, old change-feed entries but the newest, and delivered old events")
  func prune() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("db.sqlite")
    let storage = try SQLiteWorkerStorage(path: path, nowMs: 1)
    let entitlements = try SQLiteEntitlementStorage(path: path, nowMs: 1)
    let (old, _) = try await storage.storeNotification(route: "r", dedupeKey: "old", payload: [1], nowMs: 10)
    let oldClaim = try await storage.claimInbox(nowMs: 10, limit: 1, leaseMs: 60_000)[0].claimToken
    try await storage.finishInbox(id: old, claimToken: oldClaim, state: .verified, outcome: "ok", nowMs: 20)
    let (recent, _) = try await storage.storeNotification(route: "r", dedupeKey: "recent", payload: [2], nowMs: 10)
    let recentClaim = try await storage.claimInbox(nowMs: 10, limit: 1, leaseMs: 60_000)[0].claimToken
    try await storage.finishInbox(id: recent, claimToken: recentClaim, state: .rejected, outcome: "no", nowMs: 500)
    _ = try await storage.storeNotification(route: "r", dedupeKey: "pending", payload: [3], nowMs: 10)
    for (user, at) in [("a", Int64(30)), ("b", 40), ("c", 50)] {
      var subscription = stored("otx-\(user)", user: user)
      subscription.verifiedAtMs = at
      try await storage.apply(
        SubscriptionChange(
          subscription: subscription, transactions: [],
          events: [
            WorkerEvent(
              userId: user, kind: "purchased", store: .appStore, purchaseId: "otx-\(user)", productId: "monthly",
              state: .active, atMs: at)
          ], completes: nil, alsoRecompute: nil, reason: "t", nowMs: at),
        recompute: recompute)
    }
    let events = try await storage.events(after: 0, limit: 10)
    #expect(events.count == 3)
    _ = try await storage.webhookCursor(endpoint: "https://hooks.example.com", nowMs: 60)
    try await storage.advanceWebhookCursor(endpoint: "https://hooks.example.com", to: events[0].id, nowMs: 60)

    let counts = try await storage.prune(
      PrunePlan(
        finishedInboxBeforeMs: 100, changeFeedBeforeMs: 1_000, eventsBeforeMs: 1_000,
        eventsDeliveredThroughId: events[0].id))
    #expect(counts == PruneCounts(inbox: 1, changeFeed: 2, events: 1))
    #expect(try await storage.inboxCounts() == ["rejected": 1, "pending": 1])
    let feed = try await entitlements.changes(after: 0, limit: 10)
    #expect(feed.map(\.userId) == ["c"], "the newest change-feed entry always stays")
    #expect(try await storage.events(after: 0, limit: 10).map(\.id) == events.dropFirst().map(\.id))
    // The pruned notification's key is free again; a redelivery would be stored (and only re-read).
    #expect(
      try await storage.storeNotification(route: "r", dedupeKey: "old", payload: [1], nowMs: 2_000).duplicate == false)
  }
}
