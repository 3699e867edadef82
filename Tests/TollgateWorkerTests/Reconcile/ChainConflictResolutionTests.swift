import Testing
import TollgateCore
import TollgateTesting

@testable import TollgateWorker

/// Issue 27: one store read per piece of work when another worker's write of the chain lands
/// between this worker's read and its write (`ChainRefresher.refresh`): our answer is applied
/// again when that write came from an older read; the work ends on that write when it came from a
/// newer read that did the work; the store is asked again only otherwise. An older answer is
/// still never written over a newer one.
@Suite("Conflicts resolved without asking the store again")
struct ChainConflictResolutionTests {
  typealias Two = ChainConflictTests

  /// A notification for chain `id`, received now, and this worker's claim of it.
  static func claimedNotification(_ parts: WorkerParts, _ id: String) async throws -> InboxItem {
    _ = try await parts.storage.storeNotification(
      route: FakeStoreGateway.route, dedupeKey: "n-\(id)-\(parts.now)", payload: Array(id.utf8), nowMs: parts.now)
    return try #require(await parts.storage.claimInbox(nowMs: parts.now, limit: 1, leaseMs: 60_000).first)
  }

  /// A submission of chain `id` by `user`, received now by a `serve` replica whose clock reads
  /// `replicaAheadMs` more than the workers' (its own clock stamps the item), and this worker's
  /// claim of it.
  static func claimedSubmission(_ parts: WorkerParts, _ id: String, user: String, replicaAheadMs: Int64 = 0)
    async throws -> InboxItem
  {
    _ = try await parts.storage.enqueue(
      PurchaseSubmission(userId: user, store: parts.gateway.store, receipt: id, appId: FakeStoreGateway.appId),
      nowMs: parts.now + replicaAheadMs)
    return try #require(
      await parts.storage.claimInbox(nowMs: parts.now + replicaAheadMs, limit: 1, leaseMs: 60_000).first)
  }

  /// Runs `first` until its write of chain `id` is held, then `second` until its write is held
  /// too; lets `first`'s write land, then `second`'s (which finds the chain changed).
  static func secondOvertaken(
    _ parts: WorkerParts, _ id: String, first: @escaping @Sendable () async throws -> Void,
    second: @escaping @Sendable () async throws -> Void, between: () async throws -> Void = {}
  ) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
      let firstHold = await parts.storage.holdNextApply(purchaseId: id)
      group.addTask { try await first() }
      try #require(await firstHold.arrival(), "the first write never came")
      try await between()
      let secondHold = await parts.storage.holdNextApply(purchaseId: id)
      group.addTask { try await second() }
      try #require(await secondHold.arrival(), "the second write never came")
      firstHold.release()
      _ = try await group.next()
      secondHold.release()
      try await group.waitForAll()
    }
  }

  static func check(_ parts: VerificationParts, _ id: String, _ owner: WorkerParts) async throws {
    try await parts.refresher.refresh(Two.reference(owner, id), claim: nil, completes: nil, reason: "check")
  }

  @Test("the write that landed first came from an older read: ours is applied again, the store asked once")
  func olderReadLandedFirst() async throws {
    let parts = WorkerParts()
    let other = Two.secondWorker(parts)
    parts.gateway.answer("otx-1", .success(parts.boughtNow("otx-1")))
    try await parts.refresher.refresh(Two.reference(parts, "otx-1"), claimant: "alice", completes: nil, reason: "buy")
    parts.clock.advance(byMs: 60_000)
    let item = try await Self.claimedNotification(parts, "otx-1")
    let fetchedBefore = parts.gateway.fetched.count
    // B asks the store and stalls before its write; A asks a second later, and B's write lands first.
    try await Self.secondOvertaken(
      parts, "otx-1", first: { try await Self.check(other, "otx-1", parts) },
      second: { await parts.processor.process(item) }, between: { parts.clock.advance(byMs: 1_000) })

    #expect(parts.gateway.fetched.count == fetchedBefore + 2, "one store read each")
    let stored = try #require(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1"))
    #expect(stored.version == 3, "B's write and A's, applied again on top of it")
    #expect(stored.verifiedAtMs == parts.now, "A's newer read is the one stored")
    let finished = try #require(await parts.storage.item(item.id))
    #expect(finished.status == .verified)
    #expect(finished.outcome == "\(stored.state.rawValue) until \(stored.accessEndsAtMs)")
    #expect(parts.stats.snapshot.storeFailures == 0)
    #expect(parts.refresher.health.failingStores.isEmpty)
  }

  /// Runs `held` until its write of chain `id` is held, runs `meanwhile` (another write lands),
  /// then lets `held`'s write go (it finds the chain changed) and waits for it.
  static func overtaken(
    _ parts: WorkerParts, _ id: String, held: @escaping @Sendable () async throws -> Void,
    meanwhile: () async throws -> Void
  ) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
      let hold = await parts.storage.holdNextApply(purchaseId: id)
      group.addTask { try await held() }
      try #require(await hold.arrival(), "the held write never came")
      try await meanwhile()
      hold.release()
      try await group.waitForAll()
    }
  }

  @Test("a newer read landed first: the notification it covers ends on it, with no second store read")
  func newerReadCoversNotification() async throws {
    let parts = WorkerParts(store: .googlePlay)
    let other = Two.secondWorker(parts)
    let bought = Two.unsigned(parts.boughtNow("tok"))
    parts.gateway.answer("tok", .success(bought))
    try await parts.refresher.refresh(Two.reference(parts, "tok"), claimant: "alice", completes: nil, reason: "buy")
    parts.clock.advance(byMs: 60_000)
    let item = try await Self.claimedNotification(parts, "tok")
    // A reads the chain before the refund; B, a second later, after it, and writes first.
    parts.gateway.answer("tok", .success(bought), .success(Two.refunded(bought, atMs: parts.now)))
    let fetchedBefore = parts.gateway.fetched.count
    var written: StoredSubscription?
    try await Self.overtaken(
      parts, "tok", held: { await parts.processor.process(item) },
      meanwhile: {
        parts.clock.advance(byMs: 1_000)
        try await Self.check(other, "tok", parts)
        written = await parts.storage.subscription(store: .googlePlay, purchaseId: "tok")
      })

    #expect(parts.gateway.fetched.count == fetchedBefore + 2, "one store read each")
    let stored = try #require(await parts.storage.subscription(store: .googlePlay, purchaseId: "tok"))
    #expect(stored == written, "B's write stays as it was: nothing older written over it")
    #expect(stored.state == .revoked)
    #expect(!(await Two.entitled(parts, "alice")))
    let finished = try #require(await parts.storage.item(item.id))
    #expect(finished.status == .verified)
    #expect(finished.outcome == "\(stored.state.rawValue) until \(stored.accessEndsAtMs)")
    #expect(parts.stats.snapshot.storeFailures == 0)
    #expect(parts.refresher.health.failingStores.isEmpty)
  }

  @Test("a newer read landed first: the due check it covers ends on it, next checked as that write scheduled")
  func newerReadCoversDueCheck() async throws {
    let parts = WorkerParts()
    let other = Two.secondWorker(parts)
    parts.gateway.answer("otx-1", .success(parts.boughtNow("otx-1")))
    try await parts.refresher.refresh(Two.reference(parts, "otx-1"), claimant: "alice", completes: nil, reason: "buy")
    parts.clock.advance(byMs: 30 * Two.day + 60_000)
    // The store renewed it; both reads say so.
    let renewed = parts.boughtNow("otx-1")
    parts.gateway.answer("otx-1", .success(renewed))
    let check = try #require(
      await parts.storage.claimDueChecks(nowMs: parts.now, limit: 1, leaseMs: parts.settings.leaseMs).first)
    let fetchedBefore = parts.gateway.fetched.count
    var written: StoredSubscription?
    try await Self.overtaken(
      parts, "otx-1", held: { await parts.rescheduler.reverify(check) },
      meanwhile: {
        // B (a notification of the renewal) reads the chain a second after A's check did.
        parts.clock.advance(byMs: 1_000)
        try await Self.check(other, "otx-1", parts)
        written = await parts.storage.subscription(store: .appStore, purchaseId: "otx-1")
      })

    #expect(parts.gateway.fetched.count == fetchedBefore + 2, "one store read each")
    let stored = try #require(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1"))
    #expect(stored == written, "the check ends on B's write, its next check as B scheduled it")
    #expect(stored.nextCheckAtMs.map { $0 > parts.now } == true)
    #expect(await Two.entitled(parts, "alice"))
    #expect(parts.stats.snapshot.storeFailures == 0)
  }

  @Test("a newer read landed first that bound the submitter: the submission ends on it")
  func newerReadCoversSubmissionOfOwner() async throws {
    let parts = WorkerParts()
    let other = Two.secondWorker(parts)
    parts.gateway.answer("otx-1", .success(parts.boughtNow("otx-1")))
    try await parts.refresher.refresh(Two.reference(parts, "otx-1"), claimant: "alice", completes: nil, reason: "buy")
    parts.clock.advance(byMs: 60_000)
    // Alice's app submits the purchase again; a notification is read a second after it.
    let item = try await Self.claimedSubmission(parts, "otx-1", user: "alice")
    let fetchedBefore = parts.gateway.fetched.count
    try await Self.overtaken(
      parts, "otx-1", held: { await parts.processor.process(item) },
      meanwhile: {
        parts.clock.advance(byMs: 1_000)
        try await Self.check(other, "otx-1", parts)
      })

    #expect(parts.gateway.fetched.count == fetchedBefore + 2, "one store read each")
    let stored = try #require(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1"))
    #expect(stored.userId == "alice")
    #expect(stored.version == 2, "nothing written over B's write")
    #expect(await parts.storage.item(item.id)?.status == .verified)
    #expect(await parts.storage.events(userId: "alice").map(\.kind) == ["purchased"])
  }

  @Test("a newer read landed first that did not bind the submitter: the claim is bound on that newer answer")
  func newerReadWithoutClaimBindsOnIt() async throws {
    let parts = WorkerParts()
    let other = Two.secondWorker(parts)
    parts.gateway.answer("otx-1", .success(parts.boughtNow("otx-1")))
    let item = try await Self.claimedSubmission(parts, "otx-1", user: "alice")
    let fetchedBefore = parts.gateway.fetched.count
    var written: StoredSubscription?
    // A notification (no user to bind) is read a second after alice's submission and lands first.
    try await Self.overtaken(
      parts, "otx-1", held: { await parts.processor.process(item) },
      meanwhile: {
        parts.clock.advance(byMs: 1_000)
        try await Self.check(other, "otx-1", parts)
        written = await parts.storage.subscription(store: .appStore, purchaseId: "otx-1")
      })

    #expect(parts.gateway.fetched.count == fetchedBefore + 2, "one store read each")
    let stored = try #require(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1"))
    let winner = try #require(written)
    #expect(winner.userId == nil)
    #expect(stored.userId == "alice")
    #expect(stored.version == winner.version + 1)
    #expect(stored.verifiedAtMs == winner.verifiedAtMs, "bound on the newer read, not on the submission's own")
    #expect(stored.history == winner.history && stored.evidence == winner.evidence)
    #expect(await parts.storage.item(item.id)?.status == .verified)
    #expect(await parts.storage.events(userId: "alice").map(\.kind) == ["purchased"])
    #expect(await Two.entitled(parts, "alice"))
  }

  @Test(
    "a submission stamped by a replica whose clock runs ahead of the workers': a newer read that landed first still binds it, one store read each"
  )
  func replicaClockAheadOfWorkers() async throws {
    let parts = WorkerParts()
    let other = Two.secondWorker(parts)
    parts.gateway.answer("otx-1", .success(parts.boughtNow("otx-1")))
    // The replica that took the submission stamped it 2 s ahead of the workers' clock (hosts
    // whose clocks disagree, or a test's workers following a simulator's clock).
    let item = try await Self.claimedSubmission(parts, "otx-1", user: "alice", replicaAheadMs: 2_000)
    let fetchedBefore = parts.gateway.fetched.count
    // A notification is read a second after this worker took the submission up, and lands first.
    try await Self.overtaken(
      parts, "otx-1", held: { await parts.processor.process(item) },
      meanwhile: {
        parts.clock.advance(byMs: 1_000)
        try await Self.check(other, "otx-1", parts)
      })

    #expect(parts.gateway.fetched.count == fetchedBefore + 2, "one store read each")
    let stored = try #require(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1"))
    #expect(stored.userId == "alice")
    #expect(await parts.storage.item(item.id)?.status == .verified)
    #expect(await parts.storage.events(userId: "alice").map(\.kind) == ["purchased"])
  }

  @Test("a newer read landed first, signed before the notification that asked: the store is read again")
  func newerReadNotAnsweringReadsAgain() async throws {
    let parts = WorkerParts()
    let other = Two.secondWorker(parts)
    let bought = parts.boughtNow("otx-1")
    parts.gateway.answer("otx-1", .success(bought))
    try await parts.refresher.refresh(Two.reference(parts, "otx-1"), claimant: "alice", completes: nil, reason: "buy")
    parts.clock.advance(byMs: 60_000)
    // The notification's own payloads are signed now; so is the store's up-to-date answer. B's
    // read, a second after A's, gets a lagging copy signed at the purchase.
    var fresh = bought
    fresh.evidence.payloads = fresh.evidence.payloads.map {
      var payload = $0
      payload.signedAtMs = parts.now
      return payload
    }
    parts.gateway.state.withLock { $0.notificationEvidence["otx-1"] = fresh }
    parts.gateway.answer("otx-1", .success(fresh), .success(bought), .success(fresh))
    let item = try await Self.claimedNotification(parts, "otx-1")
    let fetchedBefore = parts.gateway.fetched.count
    try await Self.overtaken(
      parts, "otx-1", held: { await parts.processor.process(item) },
      meanwhile: {
        parts.clock.advance(byMs: 1_000)
        try await Self.check(other, "otx-1", parts)
      })

    #expect(parts.gateway.fetched.count == fetchedBefore + 3, "the notification's work read the store again")
    let stored = try #require(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1"))
    #expect(stored.evidence.newestSignedAtMs == fresh.evidence.newestSignedAtMs)
    #expect(await parts.storage.item(item.id)?.status == .verified)
    #expect(await Two.entitled(parts, "alice"))
  }

  @Test("our answer, applied again, proves older than the write that landed first: never written")
  func reappliedAnswerOlderThanStored() async throws {
    let parts = WorkerParts()
    let other = Two.secondWorker(parts)
    let bought = parts.boughtNow("otx-1")
    parts.gateway.answer("otx-1", .success(bought))
    try await parts.refresher.refresh(Two.reference(parts, "otx-1"), claimant: "alice", completes: nil, reason: "buy")
    parts.clock.advance(byMs: 60_000)
    let item = try await Self.claimedNotification(parts, "otx-1")
    parts.clock.advance(byMs: 1_000)
    // B reads the refund, signed now; A, a second later, gets a cached copy of the purchase's
    // first answer, signed before it. B's write lands first.
    var refund = Two.refunded(bought, atMs: parts.now)
    refund.evidence.payloads = refund.evidence.payloads.map {
      var payload = $0
      payload.signedAtMs = parts.now
      return payload
    }
    parts.gateway.answer("otx-1", .success(refund), .success(bought))
    let fetchedBefore = parts.gateway.fetched.count
    try await Self.secondOvertaken(
      parts, "otx-1", first: { try await Self.check(other, "otx-1", parts) },
      second: { await parts.processor.process(item) }, between: { parts.clock.advance(byMs: 1_000) })

    #expect(parts.gateway.fetched.count == fetchedBefore + 2, "one store read each")
    let stored = try #require(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1"))
    #expect(stored.state == .revoked)
    #expect(stored.version == 2, "the older answer was not written over the refund")
    #expect(!(await Two.entitled(parts, "alice")), "the refunded user was re-entitled")
    #expect(await parts.storage.item(item.id)?.status == .verified, "the refund's read covers the notification")
    #expect(parts.refresher.health.failingStores.isEmpty)
    #expect(parts.stats.snapshot.storeFailures == 0)
  }
}
