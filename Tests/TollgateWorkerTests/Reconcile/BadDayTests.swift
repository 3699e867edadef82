import Testing
import TollgateCore

@testable import TollgateWorker

/// Issue #14's cases against the worker's own rules, with fakes: stale answers, thin answers,
/// clock skew, outages and the half-open recovery after them.
@Suite("A bad day at the store")
struct BadDayTests {
  static let day = WorkerParts.day

  /// `chain` with its first transaction refunded at `atMs`, as the store would sign it at `atMs`.
  func refunded(_ chain: VerifiedChain, atMs: Int64) -> VerifiedChain {
    var chain = chain
    chain.history.transactions[0].revocationDateMs = atMs
    chain.history.transactions[0].revocationReason = .refunded
    chain.history.asOfMs = atMs
    chain.evidence.payloads = chain.evidence.payloads.map {
      var p = $0
      p.signedAtMs = atMs
      return p
    }
    return chain
  }

  @Test("an answer signed before the stored state (a cache, a lagging replica) is not applied: a refund stays")
  func staleAnswerAfterRefund() async throws {
    let parts = WorkerParts()
    let bought = parts.boughtNow("otx-1")
    try await parts.reconciler.apply(bought, observedAtMs: parts.now, claimant: "alice", completes: nil, reason: "t")
    parts.clock.advance(byMs: 60_000)
    try await parts.reconciler.apply(
      refunded(bought, atMs: parts.now), observedAtMs: parts.now, claimant: nil, completes: nil, reason: "refund")
    #expect(await parts.storage.entitlements(userId: "alice").allSatisfy { !$0.isActive(atMs: parts.now) })

    parts.clock.advance(byMs: 60_000)
    await #expect(throws: StoreFailure.self) {
      try await parts.reconciler.apply(bought, observedAtMs: parts.now, claimant: nil, completes: nil, reason: "stale")
    }
    let stored = try #require(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1"))
    #expect(stored.state == .revoked)
    #expect(await parts.storage.entitlements(userId: "alice").allSatisfy { !$0.isActive(atMs: parts.now) })
    #expect(await parts.storage.events(userId: "alice").map(\.kind).last != "purchased")
  }

  @Test(
    "a stale answer is a transient failure: the scheduled check is postponed, and applied once the store catches up")
  func staleRetriedUntilFresh() async throws {
    let parts = WorkerParts()
    let bought = parts.boughtNow("otx-1")
    try await parts.reconciler.apply(bought, observedAtMs: parts.now, claimant: "alice", completes: nil, reason: "t")
    parts.clock.advance(byMs: 60_000)
    let refund = refunded(bought, atMs: parts.now)
    try await parts.reconciler.apply(refund, observedAtMs: parts.now, claimant: nil, completes: nil, reason: "refund")
    parts.gateway.answer("otx-1", .success(bought))  // a caching proxy's copy from before the refund
    let stored = try #require(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1"))
    await parts.rescheduler.reverify(stored)
    let postponed = try #require(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1"))
    #expect(postponed.state == .revoked)
    #expect(postponed.failures == 1)
    #expect(parts.stats.snapshot.storeFailures == 1)
  }

  @Test("a notification's read must not be older than the notification")
  func notOlderThanNotification() async throws {
    let parts = WorkerParts()
    let old = parts.boughtNow("otx-1")
    parts.clock.advance(byMs: 10_000)
    await #expect(throws: StoreFailure.self) {
      try await parts.reconciler.apply(
        old, observedAtMs: parts.now, claimant: nil, completes: nil, reason: "notification",
        notSignedBeforeMs: parts.now)
    }
    #expect(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1") == nil)
  }

  @Test("a thin answer (no renewal info, fewer transactions) does not shorten access")
  func thinAnswerMerged() async throws {
    let parts = WorkerParts()
    let first = parts.boughtNow("otx-1")
    try await parts.reconciler.apply(first, observedAtMs: parts.now, claimant: "alice", completes: nil, reason: "t")
    parts.clock.advance(byMs: 30 * Self.day - 60_000)
    // The renewal: a second period.
    var renewed = first
    let second = StoreTransaction(
      transactionId: "otx-1-renewal", productId: "monthly", purchaseDateMs: first.history.transactions[0].expiresDateMs,
      expiresDateMs: first.history.transactions[0].expiresDateMs + 30 * Self.day)
    renewed.history.transactions.append(second)
    renewed.evidence.payloads = [.init(kind: "transaction", id: "r", sha256: "", signedAtMs: parts.now)]
    try await parts.reconciler.apply(renewed, observedAtMs: parts.now, claimant: nil, completes: nil, reason: "renewal")
    let before = try #require(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1"))

    // Later, an answer that only has the first transaction and no renewal info.
    parts.clock.advance(byMs: 120_000)
    var thin = first
    thin.history.renewalInfo = nil
    thin.evidence.payloads = [.init(kind: "transaction", id: "t", sha256: "", signedAtMs: parts.now)]
    try await parts.reconciler.apply(thin, observedAtMs: parts.now, claimant: nil, completes: nil, reason: "thin")
    let after = try #require(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1"))
    #expect(after.accessEndsAtMs == before.accessEndsAtMs)
    #expect(after.expiresAtMs == second.expiresDateMs)
    #expect(after.history.transactions.count == 2)
    #expect(after.history.renewalInfo?.willAutoRenew == true)
    #expect(await parts.storage.entitlements(userId: "alice").allSatisfy { $0.isActive(atMs: parts.now) })
  }

  @Test("a purchase a few seconds in the worker's future (the store's clock is ahead) is entitled at once")
  func clockSkew() async throws {
    let parts = WorkerParts()
    let chain = VerifiedChain.monthly(
      "otx-1", purchasedAtMs: parts.now + 2_000, expiresAtMs: parts.now + 2_000 + 30 * Self.day,
      asOfMs: parts.now + 2_000)
    let outcome = try await parts.reconciler.apply(
      chain, observedAtMs: parts.now, claimant: "alice", completes: nil, reason: "t")
    #expect(outcome.state == .active)
    let records = await parts.storage.entitlements(userId: "alice")
    #expect(records.count == 1)
    #expect(records.allSatisfy { $0.isActive(atMs: parts.now) })
    let stored = try #require(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1"))
    #expect(stored.nextCheckAtMs == parts.now + 2_000 + parts.settings.recheckDelayMs)

    // Beyond the tolerance it is not a purchase yet.
    let far = VerifiedChain.monthly(
      "otx-2", purchasedAtMs: parts.now + 10 * 60_000, expiresAtMs: parts.now + 30 * Self.day, asOfMs: parts.now)
    #expect(
      try await parts.reconciler.apply(far, observedAtMs: parts.now, claimant: "bob", completes: nil, reason: "t")
        .state == .expired)
  }

  @Test("a store outage past the leeway keeps a renewing subscriber in; the store's answer ends it when it says so")
  func outageKeepsRenewingSubscriber() async throws {
    let parts = WorkerParts { $0.storeOutageLeewayMs = 7 * Self.day }
    let bought = parts.boughtNow("otx-1", expiresInMs: Self.day)
    try await parts.reconciler.apply(bought, observedAtMs: parts.now, claimant: "alice", completes: nil, reason: "t")
    parts.gateway.answer("otx-1", .failure(StoreFailure(.transient, "HTTP 503")))

    // Five days of outage, checks failing all along.
    for _ in 0..<(5 * 24) {
      parts.clock.advance(byMs: 3_600_000)
      await parts.checkDue()
    }
    let during = try #require(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1"))
    #expect(during.reason == "store_unreachable")
    #expect(during.accessEndsAtMs == bought.history.transactions[0].expiresDateMs + 7 * Self.day)
    #expect(await parts.storage.entitlements(userId: "alice").allSatisfy { $0.isActive(atMs: parts.now) })

    // The store answers: it did not renew.
    var expired = bought
    expired.history.renewalInfo = RenewalInfo(willAutoRenew: false, expirationIntent: .customerCanceled)
    expired.evidence.payloads = [.init(kind: "renewal_info", id: "r", sha256: "", signedAtMs: parts.now)]
    parts.gateway.answer("otx-1", .success(expired))
    parts.clock.advance(byMs: 3_600_000)
    await parts.checkDue()
    let after = try #require(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1"))
    #expect(after.state == .expired)
    #expect(await parts.storage.entitlements(userId: "alice").allSatisfy { !$0.isActive(atMs: parts.now) })
  }

  @Test("the first success after an outage makes the store's postponed items and checks due at once")
  func halfOpen() async throws {
    let parts = WorkerParts { $0.backoffMaxMs = 3_600_000 }
    let bought = parts.boughtNow("otx-2")
    try await parts.reconciler.apply(bought, observedAtMs: parts.now, claimant: "bob", completes: nil, reason: "t")
    parts.gateway.answer("otx-1", .failure(StoreFailure(.transient, "HTTP 503")))
    parts.gateway.answer("otx-2", .failure(StoreFailure(.transient, "HTTP 503")))
    let id = try await parts.storage.enqueue(
      PurchaseSubmission(userId: "alice", store: .appStore, receipt: "otx-1", appId: FakeStoreGateway.appId),
      nowMs: parts.now)
    for _ in 0..<6 {
      await parts.processDue()
      if let next = await parts.storage.item(id)?.nextAttemptAtMs { parts.clock.set(next) }
    }
    await parts.processDue()  // the seventh failure: its retry is a minute or so away
    let stored = try #require(await parts.storage.subscription(store: .appStore, purchaseId: "otx-2"))
    await parts.rescheduler.reverify(stored)
    let waiting = try #require(await parts.storage.item(id))
    #expect(waiting.nextAttemptAtMs > parts.now + 10_000)

    // The store is back: one success (otx-2's check, made due by hand) pulls the rest forward.
    parts.gateway.answer("otx-1", .success(parts.boughtNow("otx-1")))
    parts.gateway.answer("otx-2", .success(parts.boughtNow("otx-2")))
    _ = await parts.storage.requestReverify(userId: "bob", nowMs: parts.now)
    await parts.checkDue()
    #expect(await parts.storage.item(id)?.nextAttemptAtMs == parts.now)
    await parts.processDue()
    #expect(await parts.storage.item(id)?.status == .verified)
  }

  @Test(
    "while the store cannot be read, a notification's signed renewal advances the state; the item waits for the API")
  func notificationEvidenceDuringOutage() async throws {
    let parts = WorkerParts()
    let bought = parts.boughtNow("otx-1", expiresInMs: Self.day)
    try await parts.reconciler.apply(bought, observedAtMs: parts.now, claimant: "alice", completes: nil, reason: "t")
    parts.clock.advance(byMs: Self.day - 60_000)
    let renewal = VerifiedChain.monthly(
      "otx-1", purchasedAtMs: parts.now + 60_000, expiresAtMs: parts.now + 60_000 + 30 * Self.day, asOfMs: parts.now)
    parts.gateway.state.withLock { $0.notificationEvidence["otx-1"] = renewal }
    parts.gateway.answer("otx-1", .failure(StoreFailure(.transient, "HTTP 500")))
    let (id, _) = try await parts.storage.storeNotification(
      route: FakeStoreGateway.route, dedupeKey: "n", payload: Array("otx-1".utf8), nowMs: parts.now)
    await parts.processDue()

    let stored = try #require(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1"))
    #expect(stored.expiresAtMs == renewal.history.transactions[0].expiresDateMs)
    #expect(stored.history.transactions.count == 2)
    #expect(await parts.storage.item(id)?.status == .pending)
    parts.clock.advance(byMs: 2 * Self.day)
    #expect(await parts.storage.entitlements(userId: "alice").allSatisfy { $0.isActive(atMs: parts.now) })
  }
}

extension EntitlementRecord {
  /// Whether the index would answer "entitled" from this record at `atMs`.
  func isActive(atMs: Int64) -> Bool { state.atQueryTime(accessEndsAtMs: accessEndsAtMs, nowMs: atMs).active }
}
