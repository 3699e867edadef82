import Testing
import TollgateCore
import TollgateStorage
import TollgateTesting
import TollgateWorker
import TollgateWorkerSQLite

/// Issue 24, items 10 and 11: grants and revokes write their events in the same transaction, and
/// every event is stored with a UUID and the entitlements it touched.
@Suite("SQLite worker storage: events")
struct EventStorageTests {
  let recompute: EntitlementRecompute = { userId, _, grants in
    grants.filter { $0.revokedAtMs == nil }.map {
      EntitlementRecord(
        userId: userId, entitlement: $0.entitlement, source: $0.source, store: .promotional, productId: "",
        environment: .production, state: .active, willRenew: false, expiresAtMs: $0.expiresAtMs,
        accessEndsAtMs: $0.expiresAtMs, verifiedAtMs: $0.grantedAtMs)
    }
  }

  @Test("a grant and its revocation are each one event with the note, who did it, and the entitlement after")
  func grantEvents() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let storage = try SQLiteWorkerStorage(path: dir.file("db.sqlite"), nowMs: 1)
    let id = try await storage.addGrant(
      userId: "vip", entitlement: "premium", expiresAtMs: 9_000, note: "ticket 42", actor: "ana", nowMs: 10,
      recompute: recompute)
    #expect(
      try await storage.revokeGrants(
        userId: "vip", entitlement: "premium", note: "web refund", actor: "bo", nowMs: 20, recompute: recompute) == 1)
    let events = try await storage.events(after: 0, limit: 10)
    #expect(events.map(\.event.kind) == ["granted", "grant_revoked"])
    let granted = try #require(events.first?.event)
    #expect(granted.userId == "vip" && granted.store == .promotional && granted.purchaseId == String(id))
    #expect(
      granted.details.grant == EventGrant(entitlement: "premium", expiresAtMs: 9_000, note: "ticket 42", actor: "ana"))
    #expect(granted.details.entitlements?.first?.active == true)
    #expect(granted.details.entitlements?.first?.expiresAtMs == 9_000)
    let revoked = try #require(events.last?.event)
    #expect(revoked.details.grant?.note == "web refund" && revoked.details.grant?.actor == "bo")
    #expect(
      revoked.details.entitlements == [
        AffectedEntitlement(
          entitlement: "premium", active: false, state: nil, expiresAtMs: nil, accessEndsAtMs: nil, source: nil)
      ])
    // Each event has its own UUID, and reads back the same every time (a redelivery sends it again).
    let ids = events.map(\.eventId)
    #expect(Set(ids).count == 2 && ids.allSatisfy { $0.count == 36 })
    #expect(try await storage.events(after: 0, limit: 10).map(\.eventId) == ids)
    // Nothing to revoke: no event.
    #expect(
      try await storage.revokeGrants(
        userId: "vip", entitlement: "premium", note: nil, actor: nil, nowMs: 30, recompute: recompute) == 0)
    #expect(try await storage.events(after: 0, limit: 10).count == 2)
  }

  @Test("a fresh database never reuses an event id")
  func freshDatabase() async throws {
    var seen: Set<String> = []
    for _ in 0..<2 {
      let dir = try TemporaryDirectory()
      defer { dir.remove() }
      let storage = try SQLiteWorkerStorage(path: dir.file("db.sqlite"), nowMs: 1)
      _ = try await storage.addGrant(
        userId: "u", entitlement: "premium", expiresAtMs: 9_000, note: nil, actor: nil, nowMs: 10, recompute: recompute)
      let stored = try #require(try await storage.events(after: 0, limit: 1).first)
      #expect(stored.id == 1)
      #expect(seen.insert(stored.eventId).inserted)
    }
  }
}
