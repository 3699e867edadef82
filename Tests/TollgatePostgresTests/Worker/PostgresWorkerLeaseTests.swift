import Testing
import TollgateCore
import TollgateStorage
import TollgateTesting
import TollgateWorker
import TollgateWorkerPostgres

/// The worker lease on PostgreSQL, with two workers each on a pool of its own: one take wins, a
/// take-over fences every write of the former holder inside the write's own transaction, and the
/// items it had claimed are the new holder's at once.
@Suite("PostgreSQL worker lease")
struct PostgresWorkerLeaseTests {
  func isLeaseLost(_ error: any Error) -> Bool { (error as? WorkerLeaseError)?.code == .lost }

  @Test("the worker lease is taken only from the holder it was read from, renewed and released only by its owner")
  func workerLeaseRow() async throws {
    try await PostgresWorkerDatabase.withTwoStorages { first, second in
      #expect(try await first.workerLease() == nil)
      #expect(try await first.takeWorkerLease(PostgresWorkerDatabase.holder("a", heartbeat: 10), replacing: nil))
      let taken = try #require(try await second.workerLease())
      #expect(taken.ownerId == "a" && taken.host == "host-a" && taken.pid == 42 && taken.generation == 1)
      // Another worker that read "nobody" (or a stale holder) too late gets nothing.
      #expect(!(try await second.takeWorkerLease(PostgresWorkerDatabase.holder("b", heartbeat: 11), replacing: nil)))
      #expect(!(try await second.takeWorkerLease(PostgresWorkerDatabase.holder("b", heartbeat: 11), replacing: "x")))
      #expect(try await first.renewWorkerLease(ownerId: "a", heartbeatAtMs: 20))
      #expect(try await second.workerLease()?.heartbeatAtMs == 20)
      // A take-over replaces exactly the holder it saw; the old owner then finds its lease lost.
      #expect(try await second.takeWorkerLease(PostgresWorkerDatabase.holder("b", heartbeat: 30), replacing: "a"))
      #expect(try await first.workerLease()?.generation == 2)
      #expect(!(try await first.renewWorkerLease(ownerId: "a", heartbeatAtMs: 31)))
      try await first.releaseWorkerLease(ownerId: "a")
      #expect(try await first.workerLease()?.ownerId == "b")
      try await second.releaseWorkerLease(ownerId: "b")
      #expect(try await first.workerLease() == nil)
    }
  }

  @Test("of many takes at once from two pools, exactly one wins, whether the lease was free or held")
  func concurrentTakesOneWins() async throws {
    try await PostgresWorkerDatabase.withTwoStorages { first, second in
      let storages = [first, second]
      func race(replacing previous: String?, round: Int) async throws -> [String] {
        try await withThrowingTaskGroup(of: String?.self) { group in
          for n in 0..<8 {
            let owner = "r\(round)-\(n)"
            group.addTask {
              let won = try await storages[n % 2].takeWorkerLease(
                PostgresWorkerDatabase.holder(owner, heartbeat: Int64(round)), replacing: previous)
              return won ? owner : nil
            }
          }
          var winners: [String] = []
          for try await winner in group { if let winner { winners.append(winner) } }
          return winners
        }
      }
      let free = try await race(replacing: nil, round: 1)
      #expect(free.count == 1, "free lease: \(free)")
      #expect(try await first.workerLease()?.ownerId == free.first)
      let held = try await race(replacing: free.first, round: 2)
      #expect(held.count == 1, "held lease: \(held)")
      let holder = try #require(try await second.workerLease())
      #expect(holder.ownerId == held.first && holder.generation == 2, "one take-over, one generation")
    }
  }

  @Test("after a take-over, the first holder's writes are refused and change nothing; its claims are handed over")
  func fencedAfterTakeOver() async throws {
    try await PostgresWorkerDatabase.withTwoStorages { first, second in
      let endpoint = "https://hooks.example.com/a"
      #expect(try await first.takeWorkerLease(PostgresWorkerDatabase.holder("a", heartbeat: 10), replacing: nil))
      // The holder writes as usual.
      #expect(try await first.webhookCursor(endpoint: endpoint, nowMs: 11) == 0)
      _ = try await first.addGrant(
        userId: "vip", entitlement: "premium", expiresAtMs: 9_000, note: nil, actor: nil, nowMs: 12,
        recompute: PostgresWorkerDatabase.grantRecompute)
      let (id, _) = try await first.storeNotification(route: "r", dedupeKey: "k", payload: [1], nowMs: 20)
      let firstClaim = try await first.claimInbox(nowMs: 20, limit: 10, leaseMs: 60_000, excluding: [])
      #expect(firstClaim.map(\.id) == [id])

      // It pauses past its heartbeat; another worker takes the lease over.
      #expect(try await second.takeWorkerLease(PostgresWorkerDatabase.holder("b", heartbeat: 30), replacing: "a"))
      // The item the first one had claimed is due for the second at once, not after its 60 s lease.
      let secondClaim = try await second.claimInbox(nowMs: 31, limit: 10, leaseMs: 60_000, excluding: [])
      #expect(secondClaim.map(\.id) == [id])

      // The first one resumes: nothing it writes lands.
      let events = try await second.events(after: 0, limit: 10)
      await #expect {
        try await first.advanceWebhookCursor(endpoint: endpoint, to: events[0].id, nowMs: 40, lease: nil)
      } throws: { self.isLeaseLost($0) }
      await #expect {
        _ = try await first.addGrant(
          userId: "vip", entitlement: "gold", expiresAtMs: 9_000, note: nil, actor: nil, nowMs: 41,
          recompute: PostgresWorkerDatabase.grantRecompute)
      } throws: { self.isLeaseLost($0) }
      await #expect {
        _ = try await first.revokeGrants(
          userId: "vip", entitlement: "premium", note: nil, actor: nil, nowMs: 42,
          recompute: PostgresWorkerDatabase.grantRecompute)
      } throws: { self.isLeaseLost($0) }
      await #expect {
        try await first.saveCatalog(ProductCatalog(products: []), nowMs: 43)
      } throws: { self.isLeaseLost($0) }
      await #expect {
        _ = try await first.takeJobLease(name: "housekeeping", ownerId: "a", nowMs: 44, ttlMs: 1_000)
      } throws: { self.isLeaseLost($0) }
      await #expect {
        _ = try await first.prune(
          PrunePlan(
            finishedInboxBeforeMs: 1_000, changeFeedBeforeMs: 1_000, eventsBeforeMs: 1_000,
            eventsDeliveredThroughId: nil))
      } throws: { self.isLeaseLost($0) }
      let error = await #expect(throws: WorkerLeaseError.self) {
        _ = try await first.webhookCursor(endpoint: "https://hooks.example.com/new", nowMs: 45)
      }
      #expect(error?.holder?.ownerId == "b")
      #expect(error?.message.contains("host-b") == true)

      #expect(try await second.webhookCursor(endpoint: endpoint, nowMs: 50) == 0, "the cursor did not move")
      #expect(try await second.grants(userId: "vip").map(\.entitlement) == ["premium"])
      #expect(try await second.grants(userId: "vip").allSatisfy { $0.revokedAtMs == nil })
      #expect(try await second.events(userId: "vip").map(\.kind) == ["granted"])
      #expect(try await second.savedCatalog() == nil)
      #expect(try await second.parkedWebhookEvents(endpoint: nil).isEmpty)
      // The new holder writes.
      try await second.advanceWebhookCursor(endpoint: endpoint, to: events[0].id, nowMs: 51, lease: nil)
      #expect(try await second.webhookCursor(endpoint: endpoint, nowMs: 52) == events[0].id)
      // Reads are not fenced: the former holder still reads what the new one wrote.
      #expect(try await first.events(userId: "vip").count == 1)
      #expect(try await first.workerLease()?.ownerId == "b")
    }
  }

  @Test("the same owner taking its lease again gets a new generation; its earlier storage is fenced off")
  func generationFences() async throws {
    try await PostgresWorkerDatabase.withTwoStorages { before, after in
      #expect(try await before.takeWorkerLease(PostgresWorkerDatabase.holder("a", heartbeat: 10), replacing: nil))
      #expect(try await after.takeWorkerLease(PostgresWorkerDatabase.holder("a", heartbeat: 20), replacing: "a"))
      await #expect {
        try await before.saveCatalog(ProductCatalog(products: []), nowMs: 21)
      } throws: { self.isLeaseLost($0) }
      try await after.saveCatalog(ProductCatalog(products: []), nowMs: 22)
      #expect(try await before.savedCatalog() == ProductCatalog(products: []))
    }
  }
}
