import Testing
import TollgateCore
import TollgateSQLite
import TollgateStorage
import TollgateTesting
import TollgateWorker
import TollgateWorkerSQLite

/// A stored subscription whose history no longer decodes: it stops the user's recompute loudly
/// and never reads as an empty history that would remove their entitlements.
extension SQLiteWorkerStorageTests {
  @Test("an undecodable subscription row stops its user's recompute and leaves their entitlements as they are")
  func undecodableRow() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("db.sqlite")
    let storage = try SQLiteWorkerStorage(path: path, nowMs: 1)
    let service = try SQLiteEntitlementStorage(path: path, nowMs: 1)
    for (id, user) in [("otx-a", "alice"), ("otx-b", "bob")] {
      try await storage.apply(
        SubscriptionChange(
          subscription: stored(id, user: user, expires: 100), transactions: [], events: [], completes: nil,
          alsoRecompute: nil, reason: "t", nowMs: 1),
        recompute: recompute)
    }
    let before = try await service.entitlements(forUsers: ["alice"])["alice"]
    #expect(before?.count == 1)
    let headBefore = try await service.headSeq()

    // Another version (or a hand edit) leaves a history this version cannot read.
    let editor = try Connection(path: path)
    try editor.execute(
      "UPDATE subscriptions SET history_json = '{\"unknown\": 1}' WHERE store_subscription_id = 'otx-a'")

    await #expect(throws: StoredRowError.self) { try await storage.subscriptions(userId: "alice") }
    await #expect(throws: StoredRowError.self) {
      try await storage.subscription(store: .appStore, purchaseId: "otx-a")
    }
    // A grant recomputes alice: it fails, and nothing is written.
    await #expect(throws: StoredRowError.self) {
      try await storage.addGrant(
        userId: "alice", entitlement: "premium", expiresAtMs: 9_999, note: nil, nowMs: 2, recompute: recompute)
    }
    // So does a verification of another of her subscriptions.
    await #expect(throws: StoredRowError.self) {
      try await storage.apply(
        SubscriptionChange(
          subscription: stored("otx-c", user: "alice", expires: 500), transactions: [], events: [], completes: nil,
          alsoRecompute: nil, reason: "t", nowMs: 3),
        recompute: recompute)
    }
    #expect(try await service.entitlements(forUsers: ["alice"])["alice"] == before)
    #expect(try await service.headSeq() == headBefore)
    #expect(try await storage.grants(userId: "alice").isEmpty)

    // The schedule goes on for everyone else; the bad row's check is put off, not dropped.
    let claimed = try await storage.claimDueChecks(nowMs: 1_000, limit: 10, leaseMs: 60_000)
    #expect(claimed.map(\.subscription.purchaseId) == ["otx-b"])
    let putOff = try editor.prepare("SELECT next_check_at_ms FROM subscriptions WHERE store_subscription_id = 'otx-a'")
      .rows { $0.int64(at: 0) }
    #expect(putOff == [1_000 + 3_600_000])
    // Neither is handed out again meanwhile: otx-b is claimed, otx-a put off.
    #expect(try await storage.claimDueChecks(nowMs: 1_000, limit: 10, leaseMs: 60_000).isEmpty)
  }
}
