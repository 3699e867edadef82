import Testing
import TollgateCore
import TollgateWorker

/// The inbox: deduplication of notifications, and claims that expire.
extension WorkerStorageConformance {
  /// A notification stored twice with one dedupe key (the store retried its delivery) is one
  /// item: the second store answers `duplicate` with the first one's id, also from another handle.
  public static func deduplicatesNotifications(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let other = try await database.openHandle()
      let first = try await database.storage.storeNotification(route: "r", dedupeKey: "k", payload: [1], nowMs: 1)
      let again = try await database.storage.storeNotification(route: "r", dedupeKey: "k", payload: [1], nowMs: 2)
      let fromOther = try await other.storeNotification(route: "r", dedupeKey: "k", payload: [1], nowMs: 3)
      let another = try await other.storeNotification(route: "r", dedupeKey: "k2", payload: [2], nowMs: 4)
      #expect(!first.duplicate, "\(sut.name): the first notification is new")
      #expect(again.duplicate && again.id == first.id, "\(sut.name): the same dedupe key again is a duplicate")
      #expect(fromOther.duplicate && fromOther.id == first.id, "\(sut.name): a duplicate from another handle")
      #expect(!another.duplicate && another.id != first.id, "\(sut.name): another key is another item")
      #expect(try await database.storage.inboxCounts() == ["pending": 2], "\(sut.name): two items in the inbox")
      let claimed = try await database.storage.claimInbox(nowMs: 10, limit: 10, leaseMs: 1_000)
      #expect(claimed.map(\.id).sorted() == [first.id, another.id].sorted(), "\(sut.name): each item claimed once")
    }
  }

  /// A claimed item is leased: nobody else is handed it while the lease lasts; once the lease
  /// has ended (its worker died) it is claimable again, with the attempt counted.
  public static func claimExpiry(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let other = try await database.openHandle()
      let (id, _) = try await database.storage.storeNotification(route: "r", dedupeKey: "k", payload: [7], nowMs: 100)
      let claimed = try await database.storage.claimInbox(nowMs: 100, limit: 10, leaseMs: 1_000)
      #expect(claimed.map(\.id) == [id], "\(sut.name): the due item is claimed")
      #expect(
        try await other.claimInbox(nowMs: 500, limit: 10, leaseMs: 1_000).isEmpty,
        "\(sut.name): a live claim is not handed out again (another handle)")
      #expect(
        try await database.storage.claimInbox(nowMs: 1_099, limit: 10, leaseMs: 1_000).isEmpty,
        "\(sut.name): a live claim is not handed out again (same handle)")
      let again = try await other.claimInbox(nowMs: 1_100, limit: 10, leaseMs: 1_000)
      #expect(again.map(\.id) == [id], "\(sut.name): an expired claim is claimable again")
      #expect(
        again.map(\.attempts) == [claimed[0].attempts + 1], "\(sut.name): the expired claim's attempt is counted")
      #expect(
        try await database.storage.claimInbox(nowMs: 1_500, limit: 10, leaseMs: 1_000).isEmpty,
        "\(sut.name): the new claim is live")
    }
  }

  /// Several handles claiming at once: every item goes to exactly one claimer.
  public static func concurrentClaimsHandEachItemOnce(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let handles = try await database.handles(4)
      var ids: [Int64] = []
      for n in 0..<40 {
        ids.append(
          try await database.storage.storeNotification(route: "r", dedupeKey: "k\(n)", payload: [1], nowMs: 1).id)
      }
      let claimed = try await withThrowingTaskGroup(of: [Int64].self) { group in
        for handle in handles {
          group.addTask {
            var mine: [Int64] = []
            while true {
              let batch = try await handle.claimInbox(nowMs: 10, limit: 3, leaseMs: 60_000)
              if batch.isEmpty { return mine }
              mine += batch.map(\.id)
            }
          }
        }
        var all: [Int64] = []
        for try await mine in group { all += mine }
        return all
      }
      #expect(claimed.count == ids.count, "\(sut.name): \(claimed.count) claims of \(ids.count) items")
      #expect(claimed.sorted() == ids.sorted(), "\(sut.name): each item claimed exactly once")
    }
  }

  /// The oldest unfinished item (pending or processing) by when it was received, for the inbox
  /// age metric: nil with none, a claimed item still counts, a finished one no longer does.
  public static func oldestUnfinishedInboxItem(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let storage = database.storage
      #expect(try await storage.oldestUnfinishedInboxItemAtMs() == nil, "\(sut.name): an empty inbox has none")
      let first = try await storage.storeNotification(route: "r", dedupeKey: "a", payload: [1], nowMs: 100).id
      _ = try await storage.storeNotification(route: "r", dedupeKey: "b", payload: [2], nowMs: 200)
      let claimed = try await storage.claimInbox(nowMs: 300, limit: 10, leaseMs: 60_000)
      #expect(claimed.count == 2, "\(sut.name): both items claimed")
      #expect(try await storage.oldestUnfinishedInboxItemAtMs() == 100, "\(sut.name): a claimed item is unfinished")
      let token = try #require(claimed.first { $0.id == first }).claimToken
      try await storage.finishInbox(id: first, claimToken: token, state: .verified, outcome: "ok", nowMs: 400)
      #expect(try await storage.oldestUnfinishedInboxItemAtMs() == 200, "\(sut.name): a finished item is not")
      #expect(
        try await database.openHandle().oldestUnfinishedInboxItemAtMs() == 200,
        "\(sut.name): the same from another handle")
    }
  }
}
