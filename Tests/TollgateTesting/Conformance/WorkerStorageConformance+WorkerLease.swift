import Testing
import TollgateCore
import TollgateWorker

/// The worker lease (issue 24): one take wins; a take-over fences every write of the former
/// holder inside the write's own transaction, and the items it had claimed are the new holder's at
/// once; reads, notifications and storages that never took the lease (the admin commands) are not
/// fenced.
extension WorkerStorageConformance {
  /// A holder of the worker lease for `owner` (host `host-<owner>`, pid 42), heartbeat at `heartbeat`.
  public static func holder(_ owner: String, heartbeat: Int64) -> WorkerLeaseHolder {
    WorkerLeaseHolder(
      ownerId: owner, host: "host-\(owner)", pid: 42, processScope: "", acquiredAtMs: heartbeat,
      heartbeatAtMs: heartbeat)
  }

  static func isLeaseLost(_ error: any Error) -> Bool { (error as? WorkerLeaseError)?.code == .lost }

  /// The worker lease is taken only from the holder it was read from, renewed and released only
  /// by its owner; each take counts a generation.
  public static func workerLeaseRow(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let first = database.storage
      let second = try await database.openHandle()
      #expect(try await first.workerLease() == nil, "\(sut.name)")
      #expect(try await first.takeWorkerLease(holder("a", heartbeat: 10), replacing: nil), "\(sut.name)")
      let taken = try #require(try await second.workerLease(), "\(sut.name)")
      #expect(
        taken.ownerId == "a" && taken.host == "host-a" && taken.pid == 42 && taken.generation == 1, "\(sut.name)")
      // Another worker that read "nobody" (or a stale holder) too late gets nothing.
      #expect(!(try await second.takeWorkerLease(holder("b", heartbeat: 11), replacing: nil)), "\(sut.name)")
      #expect(!(try await second.takeWorkerLease(holder("b", heartbeat: 11), replacing: "x")), "\(sut.name)")
      #expect(try await first.renewWorkerLease(ownerId: "a", heartbeatAtMs: 20), "\(sut.name)")
      #expect(try await second.workerLease()?.heartbeatAtMs == 20, "\(sut.name)")
      // A take-over replaces exactly the holder it saw; the old owner then finds its lease lost.
      #expect(try await second.takeWorkerLease(holder("b", heartbeat: 30), replacing: "a"), "\(sut.name)")
      #expect(try await first.workerLease()?.generation == 2, "\(sut.name)")
      #expect(!(try await first.renewWorkerLease(ownerId: "a", heartbeatAtMs: 31)), "\(sut.name)")
      try await first.releaseWorkerLease(ownerId: "a")
      #expect(try await first.workerLease()?.ownerId == "b", "\(sut.name)")
      try await second.releaseWorkerLease(ownerId: "b")
      #expect(try await first.workerLease() == nil, "\(sut.name)")
    }
  }

  /// Of many takes at once from two handles, exactly one wins, whether the lease was free or held.
  public static func workerLeaseConcurrentTakesOneWins(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let storages = [database.storage, try await database.openHandle()]
      func race(replacing previous: String?, round: Int) async throws -> [String] {
        try await withThrowingTaskGroup(of: String?.self) { group in
          for n in 0..<8 {
            let owner = "r\(round)-\(n)"
            group.addTask {
              let won = try await storages[n % 2].takeWorkerLease(
                holder(owner, heartbeat: Int64(round)), replacing: previous)
              return won ? owner : nil
            }
          }
          var winners: [String] = []
          for try await winner in group { if let winner { winners.append(winner) } }
          return winners
        }
      }
      let free = try await race(replacing: nil, round: 1)
      #expect(free.count == 1, "\(sut.name): free lease: \(free)")
      #expect(try await storages[0].workerLease()?.ownerId == free.first, "\(sut.name)")
      let held = try await race(replacing: free.first, round: 2)
      #expect(held.count == 1, "\(sut.name): held lease: \(held)")
      let current = try #require(try await storages[1].workerLease(), "\(sut.name)")
      #expect(current.ownerId == held.first && current.generation == 2, "\(sut.name): one take-over, one generation")
    }
  }

  /// After a take-over, the first holder's apply, claims, inbox outcomes, checks and webhook
  /// cursors are refused and write nothing; the item it had claimed is the new holder's at once; a
  /// notification is still stored; a storage that never took the lease is not fenced.
  public static func workerLeaseFencesInboxAndChains(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let first = database.storage
      let second = try await database.openHandle()
      #expect(try await first.takeWorkerLease(holder("a", heartbeat: 10), replacing: nil), "\(sut.name)")
      #expect(try await first.workerLease()?.generation == 1, "\(sut.name)")
      // The holder writes as usual.
      try await first.apply(
        change(subscription("otx", user: "alice", expiresAtMs: 500), nowMs: 20), recompute: recompute)
      let (id, _) = try await first.storeNotification(route: "r", dedupeKey: "k", payload: [1], nowMs: 20)
      let firstClaim = try await first.claimInbox(nowMs: 20, limit: 10, leaseMs: 60_000, excluding: [])
      #expect(firstClaim.map(\.id) == [id], "\(sut.name)")

      // It pauses past its heartbeat; another worker takes the lease over.
      #expect(try await second.takeWorkerLease(holder("b", heartbeat: 30), replacing: "a"), "\(sut.name)")
      #expect(try await second.workerLease()?.generation == 2, "\(sut.name)")
      // The item the first one had claimed is due for the second at once, not after its 60 s lease.
      let secondClaim = try await second.claimInbox(nowMs: 31, limit: 10, leaseMs: 60_000, excluding: [])
      #expect(secondClaim.map(\.id) == [id], "\(sut.name)")

      // The first one resumes: nothing it writes lands.
      let renewed = subscription("otx", user: "alice", expiresAtMs: 5_000)
      let stale = change(
        renewed, events: [event("renewed", of: renewed, atMs: 40)],
        completes: InboxCompletion(firstClaim[0].claim, state: .verified, outcome: "stale worker"), nowMs: 40)
      await #expect("\(sut.name): apply") {
        try await first.apply(stale, recompute: recompute)
      } throws: { isLeaseLost($0) }
      await #expect("\(sut.name): finish") {
        try await first.finishInbox(
          id: id, claimToken: firstClaim[0].claimToken, state: .rejected, outcome: "x", nowMs: 41)
      } throws: { isLeaseLost($0) }
      await #expect("\(sut.name): retry") {
        try await first.retryInbox(id: id, claimToken: firstClaim[0].claimToken, atMs: 99, error: "x")
      } throws: { isLeaseLost($0) }
      await #expect("\(sut.name): claim") {
        try await first.claimInbox(nowMs: 100_000, limit: 10, leaseMs: 1_000, excluding: [])
      } throws: { isLeaseLost($0) }
      await #expect("\(sut.name): postpone") {
        try await first.postponeCheck(store: .appStore, purchaseId: "otx", claimToken: nil, untilMs: 9, failures: 3)
      } throws: { isLeaseLost($0) }
      await #expect("\(sut.name): cursor") {
        try await first.webhookCursor(endpoint: "https://example.com/hook", nowMs: 43)
      } throws: { isLeaseLost($0) }
      let error = await #expect(throws: WorkerLeaseError.self, "\(sut.name)") {
        try await first.apply(stale, recompute: recompute)
      }
      #expect(error?.holder?.ownerId == "b", "\(sut.name)")
      #expect(error?.message.contains("host-b") == true, "\(sut.name)")

      let stored = try await second.subscription(store: .appStore, purchaseId: "otx")
      #expect(stored?.expiresAtMs == 500, "\(sut.name): the stale worker's apply was written")
      #expect(stored?.failures == 0, "\(sut.name)")
      #expect(try await second.events(userId: "alice").isEmpty, "\(sut.name)")
      #expect(try await second.inboxCounts() == ["processing": 1], "\(sut.name): the item stays the new holder's")
      // A notification is still stored (only added to the inbox, deduplicated).
      #expect(
        try await first.storeNotification(route: "r", dedupeKey: "k2", payload: [2], nowMs: 44).duplicate == false,
        "\(sut.name)")
      // The new holder writes.
      try await second.finishInbox(
        id: id, claimToken: secondClaim[0].claimToken, state: .verified, outcome: "ok", nowMs: 45)
      // A storage that never took the lease (the admin commands) is not fenced.
      let admin = try await database.openHandle()
      #expect(try await admin.requestReverify(userId: "alice", nowMs: 46) == 1, "\(sut.name)")
    }
  }

  /// After a take-over, the first holder's webhook cursor, grants, catalog, job leases and prune
  /// are refused and change nothing; reads are not fenced.
  public static func workerLeaseFencesGrantsAndJobs(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let first = database.storage
      let second = try await database.openHandle()
      let endpoint = "https://hooks.example.com/a"
      #expect(try await first.takeWorkerLease(holder("a", heartbeat: 10), replacing: nil), "\(sut.name)")
      #expect(try await first.webhookCursor(endpoint: endpoint, nowMs: 11) == 0, "\(sut.name)")
      _ = try await first.addGrant(
        userId: "vip", entitlement: "premium", expiresAtMs: 9_000, note: nil, actor: nil, nowMs: 12,
        recompute: grantRecompute)
      #expect(try await second.takeWorkerLease(holder("b", heartbeat: 30), replacing: "a"), "\(sut.name)")

      let events = try await second.events(after: 0, limit: 10)
      await #expect("\(sut.name): cursor") {
        try await first.advanceWebhookCursor(endpoint: endpoint, to: events[0].id, nowMs: 40, lease: nil)
      } throws: { isLeaseLost($0) }
      await #expect("\(sut.name): grant") {
        _ = try await first.addGrant(
          userId: "vip", entitlement: "gold", expiresAtMs: 9_000, note: nil, actor: nil, nowMs: 41,
          recompute: grantRecompute)
      } throws: { isLeaseLost($0) }
      await #expect("\(sut.name): revoke") {
        _ = try await first.revokeGrants(
          userId: "vip", entitlement: "premium", note: nil, actor: nil, nowMs: 42, recompute: grantRecompute)
      } throws: { isLeaseLost($0) }
      await #expect("\(sut.name): catalog") {
        try await first.saveCatalog(ProductCatalog(products: []), nowMs: 43)
      } throws: { isLeaseLost($0) }
      await #expect("\(sut.name): job lease") {
        _ = try await first.takeJobLease(name: "housekeeping", ownerId: "a", nowMs: 44, ttlMs: 1_000)
      } throws: { isLeaseLost($0) }
      await #expect("\(sut.name): prune") {
        _ = try await first.prune(
          PrunePlan(
            finishedInboxBeforeMs: 1_000, changeFeedBeforeMs: 1_000, eventsBeforeMs: 1_000,
            eventsDeliveredThroughId: nil))
      } throws: { isLeaseLost($0) }
      let error = await #expect(throws: WorkerLeaseError.self, "\(sut.name)") {
        _ = try await first.webhookCursor(endpoint: "https://hooks.example.com/new", nowMs: 45)
      }
      #expect(error?.holder?.ownerId == "b", "\(sut.name)")

      #expect(try await second.webhookCursor(endpoint: endpoint, nowMs: 50) == 0, "\(sut.name): the cursor stayed")
      #expect(try await second.grants(userId: "vip").map(\.entitlement) == ["premium"], "\(sut.name)")
      #expect(try await second.grants(userId: "vip").allSatisfy { $0.revokedAtMs == nil }, "\(sut.name)")
      #expect(try await second.events(userId: "vip").map(\.kind) == ["granted"], "\(sut.name)")
      #expect(try await second.savedCatalog() == nil, "\(sut.name)")
      // The new holder writes.
      try await second.advanceWebhookCursor(endpoint: endpoint, to: events[0].id, nowMs: 51, lease: nil)
      #expect(try await second.webhookCursor(endpoint: endpoint, nowMs: 52) == events[0].id, "\(sut.name)")
      // Reads are not fenced: the former holder still reads what the new one wrote.
      #expect(try await first.events(userId: "vip").count == 1, "\(sut.name)")
      #expect(try await first.workerLease()?.ownerId == "b", "\(sut.name)")
    }
  }

  /// The same owner taking its lease again gets a new generation; its earlier storage is fenced
  /// off.
  public static func workerLeaseGenerationFences(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let before = database.storage
      let after = try await database.openHandle()
      #expect(try await before.takeWorkerLease(holder("a", heartbeat: 10), replacing: nil), "\(sut.name)")
      #expect(try await after.takeWorkerLease(holder("a", heartbeat: 20), replacing: "a"), "\(sut.name)")
      await #expect("\(sut.name): postpone") {
        try await before.postponeCheck(store: .appStore, purchaseId: "x", claimToken: nil, untilMs: 9, failures: 1)
      } throws: { isLeaseLost($0) }
      await #expect("\(sut.name): catalog") {
        try await before.saveCatalog(ProductCatalog(products: []), nowMs: 21)
      } throws: { isLeaseLost($0) }
      try await after.postponeCheck(store: .appStore, purchaseId: "x", claimToken: nil, untilMs: 9, failures: 1)
      try await after.saveCatalog(ProductCatalog(products: []), nowMs: 22)
      #expect(try await before.savedCatalog() == ProductCatalog(products: []), "\(sut.name)")
    }
  }
}
