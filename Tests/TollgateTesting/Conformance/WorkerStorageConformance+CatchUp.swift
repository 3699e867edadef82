import Testing
import TollgateCore
import TollgateStorage
import TollgateWorker

/// `EntitlementStorage.catchUp(after:limit:)`: what a woken follower reads in one call answers
/// what `feedMark(at:)`, `savedAccessLevels()`, `changes(after:limit:)` and
/// `entitlements(forUsers:)` answer, whether a storage composes those calls (SQLite, the
/// default) or reads everything in one statement (PostgreSQL).
extension WorkerStorageConformance {
  /// Writes from the worker's `apply` and the service's `replaceEntitlements` (a user named
  /// twice, a user left with no records, a saved catalog with its own access levels), then reads
  /// from the start, from the middle with a small limit, at the head and past it: each answer is
  /// the four calls' answer and what was written.
  public static func catchUpReadsWhatTheFourCallsRead(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let openFeed = try #require(
        database.openFeed, "\(sut.name) has no feed view: disable this case in its runner, saying why")
      let feed = try await openFeed()

      let empty = try await feed.catchUp(after: 0, limit: 10)
      #expect(!empty.mark.databaseId.isEmpty, "\(sut.name): the database has an id")
      #expect(empty.mark == FeedMark(databaseId: empty.mark.databaseId, headSeq: 0, entry: nil), "\(sut.name)")
      #expect(empty.accessLevels == .success(nil), "\(sut.name): no catalog saved, no levels")
      #expect(empty.entries.isEmpty && empty.records.isEmpty, "\(sut.name): an empty feed")
      try await expectFourCalls(empty, after: 0, limit: 10, feed: feed, sut)

      let levels = AccessLevelPolicy(levels: [.billingRetry: "read_only"])
      try await database.storage.saveCatalog(ProductCatalog(accessLevels: levels), nowMs: 3)
      try await database.storage.apply(change(subscription("a-1", user: "alice")), recompute: recompute)
      try await database.storage.apply(change(subscription("b-1", user: "bob")), recompute: recompute)
      let carol = [
        EntitlementRecord.sample(userId: "carol", entitlement: "premium", source: "promotional:c1", expiresAtMs: 900),
        EntitlementRecord.sample(userId: "carol", entitlement: "extra", source: "promotional:c2", expiresAtMs: 800),
      ]
      try await feed.replaceEntitlements(userId: "carol", with: carol, reason: "conformance", nowMs: 4)
      try await feed.replaceEntitlements(userId: "dave", with: [], reason: "conformance", nowMs: 5)
      try await database.storage.apply(change(subscription("a-2", user: "alice")), recompute: recompute)

      let all = try await feed.catchUp(after: 0, limit: 100)
      try await expectFourCalls(all, after: 0, limit: 100, feed: feed, sut)
      #expect(
        all.entries.map(\.userId) == ["alice", "bob", "carol", "dave", "alice"],
        "\(sut.name): every entry, in order")
      let head = try #require(all.entries.last).seq
      #expect(all.mark.headSeq == head && all.mark.entry == nil, "\(sut.name): the head, nothing at 0")
      #expect(all.accessLevels == .success(levels), "\(sut.name): the saved catalog's levels")
      #expect(Set(all.records.keys) == ["alice", "bob", "carol"], "\(sut.name): dave has no records")
      #expect(all.records["alice"]?.count == 2, "\(sut.name): both of alice's chains, once each")
      #expect(sorted(all.records["carol"] ?? []) == sorted(carol), "\(sut.name): carol's records as written")

      let middle = try await feed.catchUp(after: all.entries[0].seq, limit: 2)
      try await expectFourCalls(middle, after: all.entries[0].seq, limit: 2, feed: feed, sut)
      #expect(middle.mark.entry == all.entries[0], "\(sut.name): the entry at the position")
      #expect(middle.entries == Array(all.entries[1...2]), "\(sut.name): the next two entries")
      #expect(Set(middle.records.keys) == ["bob", "carol"], "\(sut.name): only the users those entries name")

      let atHead = try await feed.catchUp(after: head, limit: 10)
      try await expectFourCalls(atHead, after: head, limit: 10, feed: feed, sut)
      #expect(atHead.mark.entry == all.entries.last && atHead.mark.headSeq == head, "\(sut.name)")
      #expect(atHead.entries.isEmpty && atHead.records.isEmpty, "\(sut.name): nothing after the head")

      // A position past the head (what a follower of a newer copy holds after a restore).
      let beyond = try await feed.catchUp(after: head + 5, limit: 10)
      try await expectFourCalls(beyond, after: head + 5, limit: 10, feed: feed, sut)
      #expect(beyond.mark.entry == nil && beyond.mark.headSeq == head, "\(sut.name): the head below the position")
      #expect(beyond.entries.isEmpty, "\(sut.name)")
    }
  }

  /// `catchUp` equals the four calls made now (nothing is written in between).
  private static func expectFourCalls(
    _ catchUp: FeedCatchUp, after seq: Int64, limit: Int, feed: any EntitlementStorage, _ sut: WorkerStorageUnderTest
  ) async throws {
    #expect(catchUp.mark == (try await feed.feedMark(at: seq)), "\(sut.name): the mark at \(seq)")
    #expect(
      catchUp.accessLevels == .success(try await feed.savedAccessLevels()), "\(sut.name): the saved access levels")
    let entries = try await feed.changes(after: seq, limit: limit)
    #expect(catchUp.entries == entries, "\(sut.name): the entries after \(seq), at most \(limit)")
    let records = try await feed.entitlements(forUsers: entries.map(\.userId))
    #expect(
      catchUp.records.mapValues(sorted) == records.mapValues(sorted),
      "\(sut.name): the records of the users the entries name")
  }

  /// Records in one order (the contract gives none within a user).
  private static func sorted(_ records: [EntitlementRecord]) -> [EntitlementRecord] {
    records.sorted { ($0.entitlement, $0.source) < ($1.entitlement, $1.source) }
  }
}
