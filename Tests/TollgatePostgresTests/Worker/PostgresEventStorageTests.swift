import Testing
import TollgateCore
import TollgateStorage
import TollgateTesting
import TollgateWorker
import TollgateWorkerPostgres

/// Grants write their events in the same transaction on PostgreSQL, as on SQLite
/// (`EventStorageTests`); every event is stored with a UUID and the entitlements it touched. And
/// the catalog and store health, which the conformance suite does not read back field by field.
@Suite("PostgreSQL worker storage: events, grants, catalog")
struct PostgresEventStorageTests {
  let recompute = PostgresWorkerDatabase.grantRecompute

  @Test("a grant and its revocation are each one event with the note, who did it, and the entitlement after")
  func grantEvents() async throws {
    try await PostgresWorkerDatabase.withStorage { storage in
      let id = try await storage.addGrant(
        userId: "vip", entitlement: "premium", expiresAtMs: 9_000, note: "ticket 42", actor: "ana", nowMs: 10,
        recompute: recompute)
      let grant = try #require(try await storage.grants(userId: "vip").first)
      #expect(grant.grantId == String(id) && grant.expiresAtMs == 9_000 && grant.note == "ticket 42")
      #expect(
        try await storage.revokeGrants(
          userId: "vip", entitlement: "premium", note: "web refund", actor: "bo", nowMs: 20, recompute: recompute) == 1)
      #expect(try await storage.grants(userId: "vip").map(\.revokedAtMs) == [20])
      let events = try await storage.events(after: 0, limit: 10)
      #expect(events.map(\.event.kind) == ["granted", "grant_revoked"])
      #expect(events.map(\.id) == [1, 2], "a fresh database hands out event ids from 1")
      let granted = try #require(events.first?.event)
      #expect(granted.userId == "vip" && granted.store == .promotional && granted.purchaseId == String(id))
      #expect(
        granted.details.grant == EventGrant(entitlement: "premium", expiresAtMs: 9_000, note: "ticket 42", actor: "ana")
      )
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
      #expect(try await storage.events(after: 1, limit: 10).map(\.id) == [2])
      #expect(try await storage.events(after: 0, limit: 1).map(\.id) == [1])
      #expect(try await storage.events(userId: "vip") == events.map(\.event))
      #expect(try await storage.events(userId: "nobody").isEmpty)
      // Nothing to revoke: no event.
      #expect(
        try await storage.revokeGrants(
          userId: "vip", entitlement: "premium", note: nil, actor: nil, nowMs: 30, recompute: recompute) == 0)
      #expect(try await storage.events(after: 0, limit: 10).count == 2)
    }
  }

  @Test("two workers granting to one user at once: both grants end up in the user's entitlements")
  func concurrentGrantsOfOneUser() async throws {
    try await PostgresWorkerDatabase.withTwoStorages { first, second in
      let storages = [first, second]
      try await withThrowingTaskGroup(of: Void.self) { group in
        for n in 0..<6 {
          group.addTask {
            _ = try await storages[n % 2].addGrant(
              userId: "vip", entitlement: "e\(n)", expiresAtMs: 9_000, note: nil, actor: nil, nowMs: Int64(10 + n),
              recompute: self.recompute)
          }
        }
        try await group.waitForAll()
      }
      let all = Set((0..<6).map { "e\($0)" })
      #expect(Set(try await second.grants(userId: "vip").map(\.entitlement)) == all)
      // Each recompute read every grant committed before it: none was lost to a concurrent write.
      #expect(Set(try await first.entitlements(userId: "vip").map(\.entitlement)) == all)
      let events = try await first.events(after: 0, limit: 10)
      #expect(events.map(\.id) == Array(1...6), "ids handed out one by one, in commit order")
    }
  }

  @Test("the catalog is saved once per database and read back as saved; nil before any worker ran")
  func catalog() async throws {
    try await PostgresWorkerDatabase.withTwoStorages { worker, admin in
      #expect(try await admin.savedCatalog() == nil)
      let catalog = ProductCatalog(
        entitlements: [EntitlementDefinition(id: "premium")],
        products: [ProductConfig(productId: "monthly", entitlements: ["premium"])])
      try await worker.saveCatalog(ProductCatalog(), nowMs: 1)
      try await worker.saveCatalog(catalog, nowMs: 2)
      #expect(try await admin.savedCatalog() == catalog)
      #expect(await admin.storageProblem() == nil)
    }
  }

  @Test("store health: the earliest failure of an outage is kept, and of two workers ending it one is told")
  func storeHealth() async throws {
    try await PostgresWorkerDatabase.withTwoStorages { first, second in
      try await first.recordStoreFailure(.googlePlay, atMs: 200)
      try await second.recordStoreFailure(.googlePlay, atMs: 100)
      try await second.recordStoreFailure(.googlePlay, atMs: 300)
      try await first.recordStoreFailure(.amazon, atMs: 50)
      #expect(try await second.storeOutages() == [.googlePlay: 100, .amazon: 50])
      #expect(try await first.recordStoreSuccess(.googlePlay, nowMs: 400))
      #expect(!(try await second.recordStoreSuccess(.googlePlay, nowMs: 401)))
      #expect(!(try await second.recordStoreSuccess(.appStore, nowMs: 402)))
      #expect(try await first.storeOutages() == [.amazon: 50])
    }
  }
}
