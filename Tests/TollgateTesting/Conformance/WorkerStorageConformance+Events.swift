import Testing
import TollgateCore
import TollgateWorker

/// Events of grants (issue 24, items 10 and 11): grants and revokes write their events in the
/// same transaction, and every event is stored with a UUID and the entitlements it touched;
/// concurrent grants lose none; the catalog is saved once per database.
extension WorkerStorageConformance {
  /// Entitlements from the user's open grants, as the worker's recompute gives them.
  public static let grantRecompute: EntitlementRecompute = { userId, _, grants in
    grants.filter { $0.revokedAtMs == nil }.map {
      EntitlementRecord(
        userId: userId, entitlement: $0.entitlement, source: $0.source, store: .promotional, productId: "",
        environment: .production, state: .active, willRenew: false, expiresAtMs: $0.expiresAtMs,
        accessEndsAtMs: $0.expiresAtMs, verifiedAtMs: $0.grantedAtMs)
    }
  }

  /// A grant and its revocation are each one event with the note, who did it, and the
  /// entitlement after; a fresh database hands out event ids from 1; nothing to revoke, no event.
  public static func grantEvents(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let storage = database.storage
      let recompute = grantRecompute
      let id = try await storage.addGrant(
        userId: "vip", entitlement: "premium", expiresAtMs: 9_000, note: "ticket 42", actor: "ana", nowMs: 10,
        recompute: recompute)
      let grant = try #require(try await storage.grants(userId: "vip").first, "\(sut.name): the grant")
      #expect(grant.grantId == String(id) && grant.expiresAtMs == 9_000 && grant.note == "ticket 42", "\(sut.name)")
      #expect(
        try await storage.revokeGrants(
          userId: "vip", entitlement: "premium", note: "web refund", actor: "bo", nowMs: 20, recompute: recompute) == 1,
        "\(sut.name)")
      #expect(try await storage.grants(userId: "vip").map(\.revokedAtMs) == [20], "\(sut.name)")
      let events = try await storage.events(after: 0, limit: 10)
      #expect(events.map(\.event.kind) == ["granted", "grant_revoked"], "\(sut.name)")
      #expect(events.map(\.id) == [1, 2], "\(sut.name): a fresh database hands out event ids from 1")
      let granted = try #require(events.first?.event)
      #expect(
        granted.userId == "vip" && granted.store == .promotional && granted.purchaseId == String(id), "\(sut.name)")
      #expect(
        granted.details.grant
          == EventGrant(entitlement: "premium", expiresAtMs: 9_000, note: "ticket 42", actor: "ana"),
        "\(sut.name)")
      #expect(granted.details.entitlements?.first?.active == true, "\(sut.name)")
      #expect(granted.details.entitlements?.first?.expiresAtMs == 9_000, "\(sut.name)")
      let revoked = try #require(events.last?.event)
      #expect(revoked.details.grant?.note == "web refund" && revoked.details.grant?.actor == "bo", "\(sut.name)")
      #expect(
        revoked.details.entitlements == [
          AffectedEntitlement(
            entitlement: "premium", active: false, state: nil, expiresAtMs: nil, accessEndsAtMs: nil, source: nil)
        ], "\(sut.name)")
      // Each event has its own UUID, and reads back the same every time (a redelivery sends it again).
      let ids = events.map(\.eventId)
      #expect(Set(ids).count == 2 && ids.allSatisfy { $0.count == 36 }, "\(sut.name)")
      #expect(try await storage.events(after: 0, limit: 10).map(\.eventId) == ids, "\(sut.name)")
      #expect(try await storage.events(after: 1, limit: 10).map(\.id) == [2], "\(sut.name)")
      #expect(try await storage.events(after: 0, limit: 1).map(\.id) == [1], "\(sut.name)")
      #expect(try await storage.events(userId: "vip") == events.map(\.event), "\(sut.name)")
      #expect(try await storage.events(userId: "nobody").isEmpty, "\(sut.name)")
      // Nothing to revoke: no event.
      #expect(
        try await storage.revokeGrants(
          userId: "vip", entitlement: "premium", note: nil, actor: nil, nowMs: 30, recompute: recompute) == 0,
        "\(sut.name)")
      #expect(try await storage.events(after: 0, limit: 10).count == 2, "\(sut.name)")
    }
  }

  /// Two fresh databases each hand out event id 1, with UUIDs of their own.
  public static func freshDatabasesNeverReuseEventIds(_ sut: WorkerStorageUnderTest) async throws {
    var seen: Set<String> = []
    for _ in 0..<2 {
      try await sut.withDatabase { database in
        _ = try await database.storage.addGrant(
          userId: "u", entitlement: "premium", expiresAtMs: 9_000, note: nil, actor: nil, nowMs: 10,
          recompute: grantRecompute)
        let stored = try #require(try await database.storage.events(after: 0, limit: 1).first, "\(sut.name)")
        #expect(stored.id == 1, "\(sut.name)")
        #expect(seen.insert(stored.eventId).inserted, "\(sut.name): a UUID of its own")
      }
    }
  }

  /// Two handles granting to one user at once: every grant ends up in the user's entitlements
  /// (each recompute read every grant committed before it), event ids in commit order.
  public static func concurrentGrantsOfOneUser(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let storages = [database.storage, try await database.openHandle()]
      try await withThrowingTaskGroup(of: Void.self) { group in
        for n in 0..<6 {
          group.addTask {
            _ = try await storages[n % 2].addGrant(
              userId: "vip", entitlement: "e\(n)", expiresAtMs: 9_000, note: nil, actor: nil, nowMs: Int64(10 + n),
              recompute: grantRecompute)
          }
        }
        try await group.waitForAll()
      }
      let all = Set((0..<6).map { "e\($0)" })
      #expect(Set(try await storages[1].grants(userId: "vip").map(\.entitlement)) == all, "\(sut.name)")
      #expect(Set(try await storages[0].entitlements(userId: "vip").map(\.entitlement)) == all, "\(sut.name)")
      let events = try await storages[0].events(after: 0, limit: 10)
      #expect(events.map(\.id) == Array(1...6), "\(sut.name): ids handed out one by one, in commit order")
    }
  }

  /// The catalog is saved once per database and read back as saved by another handle; nil before
  /// any worker ran.
  public static func catalogSavedOncePerDatabase(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let admin = try await database.openHandle()
      #expect(try await admin.savedCatalog() == nil, "\(sut.name)")
      let catalog = ProductCatalog(
        entitlements: [EntitlementDefinition(id: "premium")],
        products: [ProductConfig(productId: "monthly", entitlements: ["premium"])])
      try await database.storage.saveCatalog(ProductCatalog(), nowMs: 1)
      try await database.storage.saveCatalog(catalog, nowMs: 2)
      #expect(try await admin.savedCatalog() == catalog, "\(sut.name)")
      #expect(await admin.storageProblem() == nil, "\(sut.name)")
    }
  }
}
