import Testing
import TollgateCore
import TollgateWorker

/// A stored row that no longer decodes (written by another version, edited by hand) never reads
/// as missing: reading it fails loudly, and no write that would have to read it lands.
extension WorkerStorageConformance {
  /// Alice's stored chain no longer decodes: reading it, or her subscriptions, fails (an absent
  /// chain or an empty list would remove her entitlements on the next recompute); a verification
  /// of another of her chains and a grant to her fail and write nothing; bob is untouched.
  public static func undecodableRowsNeverReadAsMissing(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let corrupt = try #require(
        database.corruptSubscription,
        "\(sut.name) cannot hold an undecodable row: disable this case in its runner, saying why")
      let storage = database.storage
      let other = try await database.openHandle()
      let feed = try await database.openFeed?()
      for (chain, user) in [("alice-a", "alice"), ("bob-b", "bob")] {
        let stored = subscription(chain, user: user)
        try await storage.apply(change(stored, events: [event("purchased", of: stored, atMs: 1)]), recompute: recompute)
      }
      let recordsBefore = try await other.entitlements(userId: "alice")
      let eventsBefore = try await other.events(after: 0, limit: 100)
      let headBefore = try await feed?.headSeq()
      try #require(recordsBefore.count == 1, "\(sut.name): alice is entitled")

      try await corrupt(.appStore, "alice-a")

      await #expect(throws: (any Error).self, "\(sut.name): reading the undecodable chain fails") {
        try await other.subscription(store: .appStore, purchaseId: "alice-a")
      }
      await #expect(throws: (any Error).self, "\(sut.name): reading alice's chains fails") {
        try await other.subscriptions(userId: "alice")
      }
      let another = subscription("alice-c", user: "alice", expiresAtMs: 5_000_000)
      await #expect(throws: (any Error).self, "\(sut.name): a verification that recomputes alice fails") {
        try await storage.apply(
          change(another, events: [event("purchased", of: another, atMs: 2)]), recompute: recompute)
      }
      await #expect(throws: (any Error).self, "\(sut.name): a grant that recomputes alice fails") {
        try await storage.addGrant(
          userId: "alice", entitlement: "premium", expiresAtMs: 9_999_999, note: nil, actor: nil, nowMs: 3,
          recompute: recompute)
      }
      #expect(
        try await other.subscription(store: .appStore, purchaseId: "alice-c") == nil,
        "\(sut.name): the failed verification wrote no chain")
      #expect(try await other.grants(userId: "alice").isEmpty, "\(sut.name): the failed grant wrote no grant")
      #expect(try await other.entitlements(userId: "alice") == recordsBefore, "\(sut.name): alice's records stay")
      #expect(try await other.events(after: 0, limit: 100) == eventsBefore, "\(sut.name): no event written")
      if let feed { #expect(try await feed.headSeq() == headBefore, "\(sut.name): no change-feed entry") }
      #expect(
        try await other.subscriptions(userId: "bob").map(\.purchaseId) == ["bob-b"],
        "\(sut.name): bob's chain reads as before")
    }
  }
}
