import Testing
import TollgateCore
import TollgateStorage
import TollgateTesting
import TollgateWorker
import TollgateWorkerSQLite

/// Issue 24: a worker paused past its heartbeat is taken over; when it resumes, every write it
/// attempts is refused inside the write's own transaction, and the items it had claimed are the
/// new holder's at once.
extension SQLiteWorkerStorageTests {
  func isLeaseLost(_ error: any Error) -> Bool { (error as? WorkerLeaseError)?.code == .lost }

  @Test("after a takeover, the first holder's apply, claims, inbox outcomes, checks and webhook cursors are refused")
  func fencedAfterTakeover() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("db.sqlite")
    let first = try SQLiteWorkerStorage(path: path, nowMs: 1)
    let second = try SQLiteWorkerStorage(path: path, nowMs: 1)
    #expect(try await first.takeWorkerLease(holder("a", heartbeat: 10), replacing: nil))
    #expect(try await first.workerLease()?.generation == 1)
    // The holder writes as usual.
    try await first.apply(
      SubscriptionChange(
        subscription: stored("otx", user: "alice", expires: 500), transactions: [], events: [], completes: nil,
        alsoRecompute: nil, reason: "purchase", nowMs: 20),
      recompute: recompute)
    let (id, _) = try await first.storeNotification(route: "r", dedupeKey: "k", payload: [1], nowMs: 20)
    let firstClaim = try await first.claimInbox(nowMs: 20, limit: 10, leaseMs: 60_000)
    #expect(firstClaim.map(\.id) == [id])

    // It pauses past its heartbeat; another worker takes the lease over.
    #expect(try await second.takeWorkerLease(holder("b", heartbeat: 30), replacing: "a"))
    #expect(try await second.workerLease()?.generation == 2)
    // The item the first one had claimed is due for the second at once, not after its 60 s lease.
    let secondClaim = try await second.claimInbox(nowMs: 31, limit: 10, leaseMs: 60_000)
    #expect(secondClaim.map(\.id) == [id])

    // The first one resumes: nothing it writes lands.
    let revoked = SubscriptionChange(
      subscription: stored("otx", user: "alice", expires: 5_000), transactions: [],
      events: [
        WorkerEvent(
          userId: "alice", kind: "renewed", store: .appStore, purchaseId: "otx", productId: "monthly", state: .active,
          atMs: 40)
      ],
      completes: InboxCompletion(firstClaim[0].claim, state: .verified, outcome: "stale worker"), alsoRecompute: nil,
      reason: "stale", nowMs: 40)
    await #expect {
      try await first.apply(revoked, recompute: self.recompute)
    } throws: { self.isLeaseLost($0) }
    await #expect {
      try await first.finishInbox(
        id: id, claimToken: firstClaim[0].claimToken, state: .rejected, outcome: "x", nowMs: 41)
    } throws: { self.isLeaseLost($0) }
    await #expect {
      try await first.retryInbox(id: id, claimToken: firstClaim[0].claimToken, atMs: 99, error: "x")
    } throws: { self.isLeaseLost($0) }
    await #expect {
      try await first.claimInbox(nowMs: 100_000, limit: 10, leaseMs: 1_000)
    } throws: { self.isLeaseLost($0) }
    await #expect {
      try await first.postponeCheck(store: .appStore, purchaseId: "otx", claimToken: nil, untilMs: 9, failures: 3)
    } throws: { self.isLeaseLost($0) }
    await #expect {
      try await first.webhookCursor(endpoint: "https://example.com/hook", nowMs: 43)
    } throws: { self.isLeaseLost($0) }
    let error = await #expect(throws: WorkerLeaseError.self) {
      try await first.apply(revoked, recompute: self.recompute)
    }
    #expect(error?.holder?.ownerId == "b")
    #expect(error?.message.contains("host-b") == true)

    let subscription = try await second.subscription(store: .appStore, purchaseId: "otx")
    #expect(subscription?.expiresAtMs == 500, "the stale worker's apply was written")
    #expect(subscription?.failures == 0)
    #expect(try await second.events(userId: "alice").isEmpty)
    #expect(try await second.inboxCounts() == ["processing": 1], "the item stays the new holder's")
    // A notification is still stored (only added to the inbox, deduplicated).
    #expect(try await first.storeNotification(route: "r", dedupeKey: "k2", payload: [2], nowMs: 44).duplicate == false)
    // The new holder writes.
    try await second.finishInbox(
      id: id, claimToken: secondClaim[0].claimToken, state: .verified, outcome: "ok", nowMs: 45)
    // A storage that never took the lease (the admin commands) is not fenced.
    let admin = try SQLiteWorkerStorage(path: path, nowMs: 1, create: false)
    #expect(try await admin.requestReverify(userId: "alice", nowMs: 46) == 1)
  }

  @Test("the same owner taking its lease again gets a new generation; its earlier storage is fenced off")
  func generationFences() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("db.sqlite")
    let before = try SQLiteWorkerStorage(path: path, nowMs: 1)
    let after = try SQLiteWorkerStorage(path: path, nowMs: 1)
    #expect(try await before.takeWorkerLease(holder("a", heartbeat: 10), replacing: nil))
    #expect(try await after.takeWorkerLease(holder("a", heartbeat: 20), replacing: "a"))
    await #expect {
      try await before.postponeCheck(store: .appStore, purchaseId: "x", claimToken: nil, untilMs: 9, failures: 1)
    } throws: { self.isLeaseLost($0) }
    try await after.postponeCheck(store: .appStore, purchaseId: "x", claimToken: nil, untilMs: 9, failures: 1)
  }
}
