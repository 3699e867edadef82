import Testing
import TollgateCore
import TollgateWorker

/// `apply` is all or nothing: the subscription, its transactions, its events, the recomputed
/// entitlements with their change-feed entries and the completion of the inbox item land
/// together, or none of them does.
extension WorkerStorageConformance {
  /// One writer applies changes one after another, each completing a claimed inbox item, while a
  /// reader on another handle counts what it can see of them, twice over in one pass: events,
  /// subscriptions, entitlement records, verified inbox items (and change-feed entries where the
  /// storage has a feed). Every count only grows, so within a pass no count may be lower than one
  /// read before it: a lower one is a change seen in part (its subscription before its events,
  /// say), whatever order a non-atomic write would take.
  public static func applyIsSeenWholeFromAnotherHandle(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let writer = database.storage
      let reader = try await database.openHandle()
      let feed = try await database.openFeed?()
      let total = 24
      for n in 0..<total {
        _ = try await writer.storeNotification(route: "r", dedupeKey: "k\(n)", payload: [1], nowMs: 1)
      }
      let claims = try await writer.claimInbox(nowMs: 2, limit: total, leaseMs: 600_000)
      try #require(claims.count == total, "\(sut.name): every item claimed")

      @Sendable func pass() async throws -> [Int] {
        var counts: [Int] = []
        for _ in 0..<2 {
          counts.append(try await reader.events(userId: "alice").count)
          counts.append(try await reader.subscriptions(userId: "alice").count)
          counts.append(try await reader.entitlements(userId: "alice").count)
          counts.append(try await reader.inboxCounts()["verified"] ?? 0)
          if let feed { counts.append(try await feed.changes(after: 0, limit: 10_000).count) }
        }
        return counts
      }

      let progress = WriterProgress()
      let partial = try await withThrowingTaskGroup(of: [[Int]].self) { group in
        group.addTask {
          defer { progress.finished() }
          for (n, claim) in claims.enumerated() {
            let chain = subscription("chain-\(n)", user: "alice")
            try await writer.apply(
              change(
                chain, events: [event("purchased", of: chain, atMs: 10)],
                completes: InboxCompletion(claim.claim, state: .verified, outcome: "ok")),
              recompute: recompute)
          }
          return []
        }
        group.addTask {
          var partial: [[Int]] = []
          while true {
            // The writer may have failed (the group rethrows its error): stop after one more pass.
            let writerDone = progress.count == 1
            let counts = try await pass()
            // Non-decreasing in the order read, or some change was seen in part.
            if zip(counts, counts.dropFirst()).contains(where: { $0 > $1 }) { partial.append(counts) }
            if counts.allSatisfy({ $0 == total }) || writerDone { return partial }
            await Task.yield()
          }
        }
        var all: [[Int]] = []
        for try await found in group { all += found }
        return all
      }
      #expect(
        partial.isEmpty, "\(sut.name): changes seen in part from another handle (counts in read order): \(partial)")
    }
  }

  /// A change whose write fails part-way (computed from the version read, but the recompute of
  /// its new user gives two records of one entitlement from one source, which the storage
  /// refuses) leaves nothing behind: not the subscription, its events, the previous owner's
  /// recomputed records, a change-feed entry, nor the completion of its inbox item, as another
  /// handle sees it.
  public static func failedApplyWritesNothing(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let storage = database.storage
      let other = try await database.openHandle()
      let feed = try await database.openFeed?()
      // Before: bob owns a chain; an inbox item is claimed.
      let bobs = subscription("bob-chain", user: "bob")
      try await storage.apply(change(bobs, events: [event("purchased", of: bobs, atMs: 1)]), recompute: recompute)
      _ = try await storage.storeNotification(route: "r", dedupeKey: "k", payload: [1], nowMs: 1)
      let claim = try #require(try await storage.claimInbox(nowMs: 2, limit: 1, leaseMs: 600_000).first)
      let version = try #require(try await other.subscription(store: .appStore, purchaseId: "bob-chain")).version
      let recordsBefore = try await other.entitlements(userId: "bob")
      let eventsBefore = try await other.events(after: 0, limit: 1_000)
      let headBefore = try await feed?.headSeq()

      // The chain moves from bob to alice; alice's recompute is refused.
      let refused: EntitlementRecompute = { userId, subscriptions, grants in
        let records = recompute(userId, subscriptions, grants)
        return userId == "alice" ? records + records : records
      }
      let moved = subscription("bob-chain", user: "alice", expiresAtMs: 2_000_000)
      let failed = await #expect(throws: (any Error).self, "\(sut.name): a write with a refused record fails") {
        try await storage.apply(
          change(
            moved, events: [event("transferred", of: moved, atMs: 20)],
            completes: InboxCompletion(claim.claim, state: .verified, outcome: "ok"), alsoRecompute: "bob", nowMs: 20,
            expectedVersion: version),
          recompute: refused)
      }
      guard failed != nil else { return }
      let chain = try await other.subscription(store: .appStore, purchaseId: "bob-chain")
      #expect(
        chain?.userId == "bob" && chain?.expiresAtMs == bobs.expiresAtMs, "\(sut.name): the subscription is as before")
      #expect(try await other.subscriptions(userId: "alice").isEmpty, "\(sut.name): alice has no subscription")
      #expect(try await other.entitlements(userId: "bob") == recordsBefore, "\(sut.name): bob's records as before")
      #expect(try await other.entitlements(userId: "alice").isEmpty, "\(sut.name): alice has no records")
      #expect(try await other.events(after: 0, limit: 1_000) == eventsBefore, "\(sut.name): no event written")
      #expect(try await other.inboxCounts() == ["processing": 1], "\(sut.name): the item is still claimed")
      if let feed { #expect(try await feed.headSeq() == headBefore, "\(sut.name): no change-feed entry") }
    }
  }
}
