import Logging
import Testing
import TollgateCore
import TollgateTesting

@testable import TollgateWorker

/// Two workers on one database (one fake storage, one store), each with its own parts and so its
/// own in-process `KeyedLock`: what keeps them from undoing each other is storage's conditional
/// apply and claimed checks, never the lock.
@Suite("Two workers on one chain")
struct ChainConflictTests {
  static let day = WorkerParts.day

  /// A second worker's parts over `parts`' storage, store and clock.
  static func secondWorker(_ parts: WorkerParts) -> VerificationParts {
    VerificationParts(
      storage: parts.storage, gateways: StoreGateways([parts.gateway]), catalog: parts.catalog,
      settings: parts.settings,
      backoff: Backoff(baseMs: parts.settings.backoffBaseMs, maxMs: parts.settings.backoffMaxMs),
      stats: WorkerStats(stores: [parts.gateway.store]), nowMs: parts.clock.function,
      logger: Logger(label: "test.worker.2", factory: { _ in SwiftLogNoOpLogHandler() }))
  }

  static func entitled(_ parts: WorkerParts, _ userId: String) async -> Bool {
    await parts.storage.entitlements(userId: userId).contains { $0.isActive(atMs: parts.now) }
  }

  static func reference(_ parts: WorkerParts, _ id: String) -> ChainReference {
    ChainReference(
      store: parts.gateway.store, appId: FakeStoreGateway.appId, lookupId: id, purchaseId: id, environment: nil)
  }

  /// Google's answers carry no signing time.
  static func unsigned(_ chain: VerifiedChain) -> VerifiedChain {
    var chain = chain
    chain.evidence.payloads = chain.evidence.payloads.map {
      var payload = $0
      payload.signedAtMs = nil
      return payload
    }
    return chain
  }

  static func refunded(_ chain: VerifiedChain, atMs: Int64) -> VerifiedChain {
    var chain = chain
    chain.history.transactions[0].revocationDateMs = atMs
    chain.history.transactions[0].revocationReason = .refunded
    chain.transactions[0].revokedAtMs = atMs
    chain.transactions[0].revocationReason = "refunded"
    return chain
  }

  @Test("the older answer landing last (another worker wrote the refund in between) never re-entitles the user")
  func olderAnswerLandingLast() async throws {
    let parts = WorkerParts(store: .googlePlay)
    let other = Self.secondWorker(parts)
    let bought = Self.unsigned(parts.boughtNow("tok"))
    parts.gateway.answer("tok", .success(bought))
    try await parts.refresher.refresh(Self.reference(parts, "tok"), claimant: "alice", completes: nil, reason: "buy")
    #expect(await Self.entitled(parts, "alice"))

    parts.clock.advance(byMs: 60_000)
    // Worker A reads the chain before the refund; worker B reads it after, and so does any later read.
    parts.gateway.answer("tok", .success(bought), .success(Self.refunded(bought, atMs: parts.now)))
    // A is paused between its read and its write (a slow transaction, a stalled VM) ...
    let hold = await parts.storage.holdNextApply(purchaseId: "tok")
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask {
        try await parts.refresher.refresh(Self.reference(parts, "tok"), claim: nil, completes: nil, reason: "check")
      }
      try #require(await hold.arrival(), "A never reached its write")
      // ... while B writes the refund.
      try await other.refresher.refresh(Self.reference(parts, "tok"), claim: nil, completes: nil, reason: "refund")
      #expect(!(await Self.entitled(parts, "alice")))
      hold.release()
      try await group.waitForAll()
    }

    let stored = try #require(await parts.storage.subscription(store: .googlePlay, purchaseId: "tok"))
    #expect(stored.state == .revoked)
    #expect(!(await Self.entitled(parts, "alice")), "the refunded user was re-entitled")
    #expect(!(await parts.storage.events(userId: "alice").map(\.kind)).contains("renewed"))
    // B's read was not newer than A's (one clock): A applied its answer again, merged into B's
    // refund (what it leaves out stays), without reading the store again: one read each.
    #expect(parts.gateway.fetched.count == 3)
    // A conflict is not the store's trouble.
    #expect(parts.refresher.health.failingStores.isEmpty)
    #expect(parts.stats.snapshot.storeFailures == 0)
  }

  @Test("a refresh overtaken at every write gives up for now with the conflict, never counted as the store failing")
  func conflictsGiveUpForNow() async throws {
    let parts = WorkerParts()
    let other = Self.secondWorker(parts)
    parts.gateway.answer("otx-1", .success(parts.boughtNow("otx-1")))
    try await parts.refresher.refresh(Self.reference(parts, "otx-1"), claimant: "alice", completes: nil, reason: "buy")
    parts.clock.advance(byMs: 60_000)
    var hold = await parts.storage.holdNextApply(purchaseId: "otx-1")
    let outcome = try await withThrowingTaskGroup(of: StorageConflict?.self) { group in
      group.addTask {
        do {
          try await parts.refresher.refresh(Self.reference(parts, "otx-1"), claim: nil, completes: nil, reason: "a")
          return nil
        } catch let conflict as StorageConflict {
          return conflict
        }
      }
      // Each of A's attempts is paused before its write while B writes the chain.
      for attempt in 1...ChainRefresher.conflictAttempts {
        guard await hold.arrival() else {
          Issue.record("A did not try again after attempt \(attempt - 1)")
          hold.release()
          break
        }
        try await other.refresher.refresh(Self.reference(parts, "otx-1"), claim: nil, completes: nil, reason: "b")
        let overtaken = hold
        if attempt < ChainRefresher.conflictAttempts { hold = await parts.storage.holdNextApply(purchaseId: "otx-1") }
        overtaken.release()
      }
      return try await group.next() ?? nil
    }
    #expect(outcome?.kind == .chainChanged)
    // B's reads were never newer than A's (one clock, never moved): A asked the store once and
    // applied that answer again after each conflict; B's writes all landed.
    #expect(parts.gateway.fetched.count == 2 + ChainRefresher.conflictAttempts)
    #expect(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1")?.version == 4)
    #expect(parts.refresher.health.failingStores.isEmpty)
    #expect(parts.stats.snapshot.storeFailures == 0)
  }

  @Test("two workers claiming due checks at once ask the store once per check")
  func twoWorkersOneCallPerCheck() async throws {
    let parts = WorkerParts()
    let other = Self.secondWorker(parts)
    let chains = (1...6).map { "otx-\($0)" }
    for chain in chains {
      parts.gateway.answer(chain, .success(parts.boughtNow(chain)))
      try await parts.refresher.refresh(Self.reference(parts, chain), claimant: "alice", completes: nil, reason: "buy")
    }
    let fetchedBefore = parts.gateway.fetched.count
    parts.clock.advance(byMs: 31 * Self.day)
    await withTaskGroup(of: Void.self) { group in
      for rescheduler in [parts.rescheduler, other.rescheduler] {
        group.addTask {
          for _ in 0..<chains.count {
            let due = await parts.storage.claimDueChecks(nowMs: parts.now, limit: 2, leaseMs: parts.settings.leaseMs)
            if due.isEmpty { return }
            for check in due { await rescheduler.reverify(check) }
          }
        }
      }
    }
    let asked = parts.gateway.fetched.dropFirst(fetchedBefore).map(\.lookupId)
    #expect(asked.sorted() == chains.sorted(), "each due check asked the store once: \(asked)")
  }
}
