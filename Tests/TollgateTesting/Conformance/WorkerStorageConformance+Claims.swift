import Testing
import TollgateCore
import TollgateWorker

/// Inbox claims are fenced: every claim hands out a new token, and retrying or finishing the item
/// (alone, or as the completion of an `apply`) is refused with `StorageConflict.claimLost`, writing
/// nothing, once another claim replaced the one the write carries. A worker whose lease ran out
/// while it was still busy with an item can then never finish it over the worker that holds it now.
extension WorkerStorageConformance {
  /// A worker's own running items are never claimed again by it, even once their lease has
  /// ended (`excluding`), so its finish keeps its claim; another handle may still take them.
  public static func claimExcludesOwnRunningItems(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let a = database.storage
      let (id, _) = try await a.storeNotification(route: "r", dedupeKey: "k", payload: [1], nowMs: 100)
      let (other, _) = try await a.storeNotification(route: "r", dedupeKey: "k2", payload: [2], nowMs: 100)
      let first = try await a.claimInbox(nowMs: 100, limit: 1, leaseMs: 50)
      #expect(first.map(\.id) == [id], "\(sut.name): the oldest item first")
      let again = try await a.claimInbox(nowMs: 200, limit: 10, leaseMs: 50, excluding: [id])
      #expect(again.map(\.id) == [other], "\(sut.name): the excluded item is not claimed again, past its lease")
      let claim = try #require(first.first)
      try await a.finishInbox(id: id, claimToken: claim.claimToken, state: .verified, outcome: "A", nowMs: 210)
      let b = try await database.openHandle()
      #expect(
        try await b.claimInbox(nowMs: 400, limit: 10, leaseMs: 50, excluding: []).map(\.id) == [other],
        "\(sut.name): another handle takes an item whose lease ended")
    }
  }

  /// A worker renews the claim of an item it is still processing: another handle does not take
  /// it past its first lease, only once the renewed lease ends; a claim that was replaced is
  /// not renewed (its item stays with its new holder).
  public static func renewedClaimIsNotTakenOver(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let a = database.storage
      let (id, _) = try await a.storeNotification(route: "r", dedupeKey: "k", payload: [1], nowMs: 100)
      let claim = try #require(try await a.claimInbox(nowMs: 100, limit: 1, leaseMs: 50, excluding: []).first)
      #expect(try await a.renewInboxClaims([claim.claim], untilMs: 300) == 1, "\(sut.name): renewed")
      let b = try await database.openHandle()
      #expect(
        try await b.claimInbox(nowMs: 200, limit: 10, leaseMs: 50, excluding: []).isEmpty,
        "\(sut.name): a renewed claim is not taken over past its first lease")
      let taken = try await b.claimInbox(nowMs: 300, limit: 10, leaseMs: 50, excluding: [])
      #expect(taken.map(\.id) == [id], "\(sut.name): taken once the renewed lease ends")
      #expect(try await a.renewInboxClaims([claim.claim], untilMs: 1_000) == 0, "\(sut.name): a lost claim stays lost")
      #expect(
        try await b.claimInbox(nowMs: 360, limit: 10, leaseMs: 50, excluding: []).map(\.id) == [id],
        "\(sut.name): the new holder's lease was not extended by the old claim")
    }
  }

  /// Worker A claims an item with a short lease and stalls; the lease ends and worker B (another
  /// handle) claims it. A's finish and retry are refused and change nothing; B's finish lands,
  /// and the item ends as B says. B's claim has a new token.
  public static func lostClaimCannotFinishOrRetry(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let a = database.storage
      let b = try await database.openHandle()
      let (id, _) = try await a.storeNotification(route: "r", dedupeKey: "k", payload: [1], nowMs: 100)
      let first = try #require(
        try await a.claimInbox(nowMs: 100, limit: 10, leaseMs: 50).first, "\(sut.name): A claims the item")
      #expect(first.id == id && first.claimToken != 0, "\(sut.name): a claim hands out a nonzero token")
      let second = try #require(
        try await b.claimInbox(nowMs: 150, limit: 10, leaseMs: 60_000).first,
        "\(sut.name): once A's lease ended, B claims the item")
      #expect(second.claimToken != 0, "\(sut.name): B's claim has a token")
      #expect(second.claimToken != first.claimToken, "\(sut.name): every claim hands out a new token")

      await expectClaimLost(sut, "A's finish after B claimed the item") {
        try await a.finishInbox(id: id, claimToken: first.claimToken, state: .rejected, outcome: "A", nowMs: 160)
      }
      await expectClaimLost(sut, "A's retry after B claimed the item") {
        try await a.retryInbox(id: id, claimToken: first.claimToken, atMs: 170, error: "A's store trouble")
      }
      #expect(try await b.inboxCounts() == ["processing": 1], "\(sut.name): the item stays B's, still in flight")
      #expect(
        try await a.claimInbox(nowMs: 1_000, limit: 10, leaseMs: 1_000).isEmpty,
        "\(sut.name): A's refused retry did not make the item due again")

      try await b.finishInbox(id: id, claimToken: second.claimToken, state: .verified, outcome: "B", nowMs: 180)
      #expect(try await a.inboxCounts() == ["verified": 1], "\(sut.name): the item ends as B said")
      await expectClaimLost(sut, "A's finish after B finished the item") {
        try await a.finishInbox(id: id, claimToken: first.claimToken, state: .rejected, outcome: "A", nowMs: 190)
      }
      #expect(try await b.inboxCounts() == ["verified": 1], "\(sut.name): B's outcome stays")
    }
  }

  /// The same race through `apply`: A's verification completing the item under its lost claim is
  /// refused as a whole (no subscription, transaction, event, entitlement, nor the completion);
  /// B's lands with its completion.
  public static func lostClaimApplyWritesNothing(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let a = database.storage
      let b = try await database.openHandle()
      let feed = try await database.openFeed?()
      let headBefore = try await feed?.headSeq()
      let (id, _) = try await a.storeNotification(route: "r", dedupeKey: "k", payload: [1], nowMs: 100)
      let first = try #require(
        try await a.claimInbox(nowMs: 100, limit: 10, leaseMs: 50).first, "\(sut.name): A claims the item")
      let second = try #require(
        try await b.claimInbox(nowMs: 150, limit: 10, leaseMs: 60_000).first,
        "\(sut.name): once A's lease ended, B claims the item")
      #expect(second.id == id, "\(sut.name): B holds the same item")

      let stale = subscription("otx", user: "alice", expiresAtMs: 500)
      await expectClaimLost(sut, "A's apply completing the item after B claimed it") {
        try await a.apply(
          change(
            stale, events: [event("purchased", of: stale, atMs: 160)],
            completes: InboxCompletion(first.claim, state: .verified, outcome: "A"), nowMs: 160),
          recompute: recompute)
      }
      #expect(
        try await b.subscription(store: .appStore, purchaseId: "otx") == nil, "\(sut.name): A's chain was not written")
      #expect(try await b.events(userId: "alice").isEmpty, "\(sut.name): A's event was not written")
      #expect(try await b.entitlements(userId: "alice").isEmpty, "\(sut.name): A's recompute was not written")
      if let feed {
        #expect(try await feed.headSeq() == headBefore, "\(sut.name): A's change-feed entry was not written")
      }
      #expect(try await b.inboxCounts() == ["processing": 1], "\(sut.name): the item stays B's")

      let fresh = subscription("otx", user: "alice", expiresAtMs: 900)
      try await b.apply(
        change(
          fresh, events: [event("purchased", of: fresh, atMs: 170)],
          completes: InboxCompletion(second.claim, state: .verified, outcome: "B"), nowMs: 170),
        recompute: recompute)
      #expect(
        try await a.subscription(store: .appStore, purchaseId: "otx")?.expiresAtMs == 900,
        "\(sut.name): B's chain is written")
      #expect(try await a.events(userId: "alice").count == 1, "\(sut.name): B's event only")
      #expect(try await a.inboxCounts() == ["verified": 1], "\(sut.name): B's apply completed the item")
    }
  }

  /// A retry or a finish ends the claim: the same token cannot end the item again, a retried item
  /// waits for its time, and the next claim of the item hands out another token.
  public static func retryAndFinishEndTheClaim(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let storage = database.storage
      let (id, _) = try await storage.storeNotification(route: "r", dedupeKey: "k", payload: [1], nowMs: 100)
      let first = try #require(
        try await storage.claimInbox(nowMs: 100, limit: 10, leaseMs: 60_000).first, "\(sut.name): claimed")
      try await storage.retryInbox(id: id, claimToken: first.claimToken, atMs: 200, error: "store trouble")
      #expect(try await storage.inboxCounts() == ["pending": 1], "\(sut.name): the retry put the item back")
      await expectClaimLost(sut, "a finish under the claim the retry ended") {
        try await storage.finishInbox(id: id, claimToken: first.claimToken, state: .verified, outcome: "x", nowMs: 201)
      }
      #expect(try await storage.inboxCounts() == ["pending": 1], "\(sut.name): the refused finish changed nothing")
      #expect(
        try await storage.claimInbox(nowMs: 199, limit: 10, leaseMs: 60_000).isEmpty,
        "\(sut.name): a retried item waits for its time")
      let again = try #require(
        try await storage.claimInbox(nowMs: 200, limit: 10, leaseMs: 60_000).first, "\(sut.name): claimed again")
      #expect(again.claimToken != first.claimToken, "\(sut.name): the next claim has a new token")
      try await storage.finishInbox(id: id, claimToken: again.claimToken, state: .verified, outcome: "ok", nowMs: 202)
      await expectClaimLost(sut, "a second finish under the same claim") {
        try await storage.finishInbox(id: id, claimToken: again.claimToken, state: .rejected, outcome: "x", nowMs: 203)
      }
      await expectClaimLost(sut, "a finish of an item that is not in the inbox") {
        try await storage.finishInbox(
          id: id + 1_000, claimToken: again.claimToken, state: .verified, outcome: "x", nowMs: 204)
      }
      #expect(try await storage.inboxCounts() == ["verified": 1], "\(sut.name): the item ended once")
    }
  }

  /// Two handles race to claim items whose leases all ran out at once, while the first holder
  /// tries to finish them: each item ends exactly once, by whoever holds its current claim.
  public static func racingClaimsAndFinishesEndEachItemOnce(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let first = database.storage
      let handles = try await database.handles(2)
      let total = 12
      for n in 0..<total {
        _ = try await first.storeNotification(route: "r", dedupeKey: "k\(n)", payload: [1], nowMs: 1)
      }
      let stale = try await first.claimInbox(nowMs: 1, limit: total, leaseMs: 10)
      try #require(stale.count == total, "\(sut.name): every item claimed")
      // Who ended which item: a new holder (`fresh`) or the stale one.
      let ended = try await withThrowingTaskGroup(of: (ids: [Int64], fresh: Bool).self) { group in
        for handle in handles {
          group.addTask {
            var mine: [Int64] = []
            while true {
              let batch = try await handle.claimInbox(nowMs: 20, limit: 2, leaseMs: 60_000)
              if batch.isEmpty { return (mine, true) }
              for item in batch {
                try await handle.finishInbox(
                  id: item.id, claimToken: item.claimToken, state: .verified, outcome: "new holder", nowMs: 21)
                mine.append(item.id)
              }
            }
          }
        }
        group.addTask {
          // The stale holder's leases ended, but until another claim replaced one it still holds
          // that item: those finishes may land; the others must not.
          var landed: [Int64] = []
          for item in stale {
            do {
              try await first.finishInbox(
                id: item.id, claimToken: item.claimToken, state: .rejected, outcome: "stale holder", nowMs: 21)
              landed.append(item.id)
            } catch let conflict as StorageConflict where conflict.kind == .claimLost {}
          }
          return (landed, false)
        }
        var all: [(ids: [Int64], fresh: Bool)] = []
        for try await part in group { all.append(part) }
        return all
      }
      let ids = ended.flatMap(\.ids)
      let byStale = ended.filter { !$0.fresh }.flatMap(\.ids).count
      #expect(ids.count == total, "\(sut.name): \(ids.count) finishes landed for \(total) items")
      #expect(Set(ids).count == total, "\(sut.name): each item ended exactly once")
      #expect(
        try await first.inboxCounts() == ["verified": total - byStale, "rejected": byStale].filter { $0.value > 0 },
        "\(sut.name): every item ended as the holder of its current claim said")
    }
  }

  static func expectClaimLost(
    _ sut: WorkerStorageUnderTest, _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
  ) async {
    do {
      try await body()
      Issue.record(
        "\(sut.name): \(what) was written; it must be refused as a lost claim", sourceLocation: sourceLocation)
    } catch let conflict as StorageConflict where conflict.kind == .claimLost {
      // Refused, as it must be.
    } catch {
      Issue.record(
        "\(sut.name): \(what) failed otherwise than as a lost claim: \(error)", sourceLocation: sourceLocation)
    }
  }
}
