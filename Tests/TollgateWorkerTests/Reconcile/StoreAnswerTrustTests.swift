import Testing
import TollgateCore

@testable import TollgateWorker

/// Issue 24's wrong answers about store trouble, at the worker's seams: a purchase the store no
/// longer has (gone), "not found" for a chain verified before, stale answers from unsigned stores,
/// and a purchase that starts in the future.
@Suite("Store answers the worker must not take at their word")
struct StoreAnswerTrustTests {
  static let day = WorkerParts.day

  /// An Amazon-like receipt: one transaction whose id is the receipt's, unsigned.
  static func receipt(
    _ parts: WorkerParts, _ id: String, expiresAtMs: Int64, cancelDateMs: Int64? = nil, revokedAtMs: Int64? = nil
  ) -> VerifiedChain {
    var transaction = StoreTransaction(
      transactionId: id, productId: "monthly", purchaseDateMs: WorkerParts.start, expiresDateMs: expiresAtMs)
    transaction.revocationDateMs = revokedAtMs
    transaction.revocationReason = revokedAtMs.map { _ in .refunded }
    let history = SubscriptionHistory(
      store: parts.gateway.store, purchaseId: id, environment: .sandbox, transactions: [transaction],
      renewalInfo: RenewalInfo(willAutoRenew: cancelDateMs == nil, cancelDateMs: cancelDateMs), asOfMs: parts.now)
    return VerifiedChain(
      store: parts.gateway.store, appId: FakeStoreGateway.appId, purchaseId: id, history: history,
      transactions: [
        TransactionRow(
          storeTransactionId: id, productId: "monthly", purchasedAtMs: WorkerParts.start, expiresAtMs: expiresAtMs,
          revokedAtMs: revokedAtMs, revocationReason: revokedAtMs.map { _ in "refunded" }, offerType: nil,
          environment: .sandbox, payloadSHA256: nil, signedAtMs: nil)
      ],
      evidence: VerificationEvidence(
        source: "fake_rvs", environment: .sandbox,
        payloads: [.init(kind: "rvs_receipt", id: id, sha256: "\(expiresAtMs)", signedAtMs: nil)],
        verifiedAtMs: parts.now),
      appAccountToken: nil)
  }

  static func reference(_ parts: WorkerParts, _ id: String) -> ChainReference {
    ChainReference(
      store: parts.gateway.store, appId: FakeStoreGateway.appId, lookupId: id, purchaseId: id, environment: nil)
  }

  /// Submits `id` for alice with the store answering `answer`.
  static func verified(_ parts: WorkerParts, _ id: String, _ answer: VerifiedChain) async throws -> StoredSubscription {
    parts.gateway.answer(id, .success(answer))
    try await parts.refresher.refresh(reference(parts, id), claimant: "alice", completes: nil, reason: "purchase")
    return try #require(await parts.storage.subscription(store: parts.gateway.store, purchaseId: id))
  }

  func stored(_ parts: WorkerParts, _ id: String) async throws -> StoredSubscription {
    try #require(await parts.storage.subscription(store: parts.gateway.store, purchaseId: id))
  }

  // MARK: Gone

  @Test("gone (410) on a scheduled check: the state stays, checks stop and say why; a notification still reads it")
  func goneStopsChecks() async throws {
    let parts = WorkerParts(store: .googlePlay)
    let first = try await Self.verified(parts, "tok", parts.boughtNow("tok", expiresInMs: 30 * Self.day))
    parts.clock.set(first.expiresAtMs + 70 * Self.day)
    parts.gateway.answer("tok", .failure(StoreFailure(.gone, "the store no longer has this purchase (Google 410)")))
    await parts.rescheduler.reverify(try await stored(parts, "tok"))

    let after = try await stored(parts, "tok")
    #expect(after.nextCheckAtMs == nil, "a purchase the store no longer has is not asked again")
    #expect(after.evidence.checksStopped?.atMs == parts.now)
    #expect(after.evidence.checksStopped?.reason.contains("410") == true)
    #expect(after.state == first.state && after.expiresAtMs == first.expiresAtMs)
    #expect(after.history == first.history)
    #expect(await parts.storage.claimDueChecks(nowMs: .max - 1, limit: 10, leaseMs: 1).isEmpty)
    #expect(await parts.storage.events(userId: "alice").map(\.kind) == ["purchased"])

    // A notification for it still reads the store; its answer replaces the note.
    parts.gateway.answer(
      "tok",
      .success(
        .monthly(
          "tok", store: .googlePlay, purchasedAtMs: parts.now, expiresAtMs: parts.now + 30 * Self.day,
          asOfMs: parts.now)))
    _ = try await parts.storage.storeNotification(
      route: FakeStoreGateway.route, dedupeKey: "n1", payload: Array("tok".utf8), nowMs: parts.now)
    await parts.processDue()
    let read = try await stored(parts, "tok")
    #expect(read.evidence.checksStopped == nil)
    #expect(read.nextCheckAtMs != nil)
  }

  @Test("explain says when and why checks stopped")
  func explainSaysChecksStopped() {
    var source = Explanation.Source(
      source: "google_play:tok", store: "google_play", productId: "monthly", active: false, state: "expired",
      accessEndsAtMs: 1, expiresAtMs: 1, willRenew: false, environment: "sandbox", verifiedAtMs: 1, rule: "lapsed",
      evidenceSource: nil, payloads: [], grantNote: nil, replaces: [], decides: true)
    source.checksStopped = .init(atMs: 42, reason: "the store no longer has this purchase (Google 410)")
    let text = Explanation(
      userId: "alice", entitlement: "premium", evaluatedAtMs: 50, active: false, state: "expired", sources: [source],
      recentEvents: []
    ).text
    #expect(text.contains("checks stopped: the store no longer has this purchase (Google 410) at 42"), "\(text)")
  }

  // MARK: Not found for a known chain

  @Test("a 404 for a chain verified before is the store's trouble: state kept, outage counted, access held")
  func notFoundOnKnownChain() async throws {
    let parts = WorkerParts(store: .googlePlay)
    let first = try await Self.verified(parts, "tok", parts.boughtNow("tok", expiresInMs: 30 * Self.day))
    parts.gateway.answer("tok", .failure(StoreFailure(.notFound, "HTTP 404")))
    // Past the renewal leeway (1 day) with the store saying "not found" at every check.
    parts.clock.set(first.expiresAtMs + 2 * Self.day)
    await parts.rescheduler.reverify(try await stored(parts, "tok"))
    #expect(parts.refresher.health.failingStores.contains(.googlePlay))
    let held = try await stored(parts, "tok")
    #expect(held.history == first.history)
    #expect(held.reason == StateReason.storeUnreachable.rawValue)
    #expect(held.accessEndsAtMs > parts.now, "a payer is not cut because the store says not found")
    #expect((held.nextCheckAtMs ?? 0) > parts.now)

    // A notification for it, hours into the storm, is kept for a retry, never rejected.
    _ = try await parts.storage.storeNotification(
      route: FakeStoreGateway.route, dedupeKey: "n1", payload: Array("tok".utf8), nowMs: parts.now)
    parts.clock.advance(byMs: 3 * 3_600_000)
    await parts.processDue()
    #expect(await parts.storage.inboxCounts()["rejected"] == nil)
    #expect(await parts.storage.inboxCounts()["pending"] == 1)
    #expect(!(await parts.storage.events(userId: "alice").map(\.kind).contains("expired")))
  }

  @Test("an authentic notification for a purchase the store does not find is retried for days, then rejected")
  func notificationNotFoundWindow() async throws {
    let parts = WorkerParts(store: .googlePlay)
    parts.gateway.answer("new", .failure(StoreFailure(.notFound, "HTTP 404")))
    _ = try await parts.storage.storeNotification(
      route: FakeStoreGateway.route, dedupeKey: "n1", payload: Array("new".utf8), nowMs: parts.now)
    await parts.processDue()
    // Two hours later (past the submissions' one-hour window): still kept.
    parts.clock.advance(byMs: 2 * 3_600_000)
    await parts.processDue()
    #expect(await parts.storage.inboxCounts()["pending"] == 1)
    // The store answers again: the buyer's purchase is read.
    parts.gateway.answer("new", .success(parts.boughtNow("new")))
    parts.clock.advance(byMs: 3_600_000)
    await parts.processDue()
    #expect(await parts.storage.subscription(store: .googlePlay, purchaseId: "new") != nil)
    #expect(await parts.storage.inboxCounts()["verified"] == 1)
    // One that stays unknown for longer than the window is rejected.
    parts.gateway.answer("ghost", .failure(StoreFailure(.notFound, "HTTP 404")))
    _ = try await parts.storage.storeNotification(
      route: FakeStoreGateway.route, dedupeKey: "n2", payload: Array("ghost".utf8), nowMs: parts.now)
    await parts.processDue()
    parts.clock.advance(byMs: ItemProcessor.notificationNotFoundWindowMs + 3_600_000)
    await parts.processDue()
    #expect(await parts.storage.inboxCounts()["rejected"] == 1)
  }

  // MARK: Unsigned answers out of order

  @Test("an unsigned answer with an earlier expiry (a renewal gone) is not applied, read again, and counted")
  func staleEarlierExpiry() async throws {
    let parts = WorkerParts(store: .amazon)
    let renewed = Self.receipt(parts, "r1", expiresAtMs: WorkerParts.start + 60 * Self.day)
    let first = try await Self.verified(parts, "r1", renewed)
    parts.clock.advance(byMs: 31 * Self.day)
    // A cached copy of the first month's answer.
    parts.gateway.answer("r1", .success(Self.receipt(parts, "r1", expiresAtMs: WorkerParts.start + 30 * Self.day)))
    await #expect(throws: StoreFailure.self) {
      try await parts.refresher.refresh(Self.reference(parts, "r1"), claim: nil, completes: nil, reason: "t")
    }
    let after = try await stored(parts, "r1")
    #expect(after.expiresAtMs == first.expiresAtMs)
    #expect(after.history == first.history)
    #expect(parts.refresher.health.failingStores.contains(.amazon), "a store answering stale copies is not serving")

    // The fresh answer is applied, and ends the outage.
    parts.gateway.answer("r1", .success(Self.receipt(parts, "r1", expiresAtMs: WorkerParts.start + 90 * Self.day)))
    try await parts.refresher.refresh(Self.reference(parts, "r1"), claim: nil, completes: nil, reason: "t")
    #expect(try await stored(parts, "r1").expiresAtMs == WorkerParts.start + 90 * Self.day)
    #expect(parts.refresher.health.failingStores.isEmpty)
  }

  @Test("an unsigned answer without the refund (or cancellation) the store reported is not applied")
  func staleUnrefund() async throws {
    let parts = WorkerParts(store: .amazon)
    _ = try await Self.verified(parts, "r1", Self.receipt(parts, "r1", expiresAtMs: WorkerParts.start + 30 * Self.day))
    parts.clock.advance(byMs: Self.day)
    let refundedAt = parts.now
    parts.gateway.answer(
      "r1",
      .success(Self.receipt(parts, "r1", expiresAtMs: WorkerParts.start + 30 * Self.day, cancelDateMs: refundedAt)))
    try await parts.refresher.refresh(Self.reference(parts, "r1"), claim: nil, completes: nil, reason: "refund")
    let refunded = try await stored(parts, "r1")
    #expect(refunded.history.renewalInfo?.cancelDateMs == refundedAt)
    let entitledAfterRefund = await parts.storage.entitlements(userId: "alice")

    parts.clock.advance(byMs: 60_000)
    parts.gateway.answer("r1", .success(Self.receipt(parts, "r1", expiresAtMs: WorkerParts.start + 30 * Self.day)))
    await #expect(throws: StoreFailure.self) {
      try await parts.refresher.refresh(Self.reference(parts, "r1"), claim: nil, completes: nil, reason: "stale")
    }
    #expect(try await stored(parts, "r1").history.renewalInfo?.cancelDateMs == refundedAt)
    #expect(await parts.storage.entitlements(userId: "alice") == entitledAfterRefund)

    // A revocation on the transaction is kept the same way.
    let other = WorkerParts(store: .amazon)
    _ = try await Self.verified(
      other, "r2", Self.receipt(other, "r2", expiresAtMs: WorkerParts.start + 30 * Self.day, revokedAtMs: other.now))
    other.gateway.answer("r2", .success(Self.receipt(other, "r2", expiresAtMs: WorkerParts.start + 30 * Self.day)))
    await #expect(throws: StoreFailure.self) {
      try await other.refresher.refresh(Self.reference(other, "r2"), claim: nil, completes: nil, reason: "stale")
    }
  }

  @Test("an earlier expiry the answer explains (a refund, a cancellation, a new store state) is applied")
  func explainedEarlierExpiryApplied() async throws {
    let parts = WorkerParts(store: .amazon)
    _ = try await Self.verified(parts, "r1", Self.receipt(parts, "r1", expiresAtMs: WorkerParts.start + 60 * Self.day))
    parts.clock.advance(byMs: Self.day)
    parts.gateway.answer(
      "r1", .success(Self.receipt(parts, "r1", expiresAtMs: parts.now, cancelDateMs: parts.now)))
    try await parts.refresher.refresh(Self.reference(parts, "r1"), claim: nil, completes: nil, reason: "cancel")
    #expect(try await stored(parts, "r1").expiresAtMs == parts.now)
    #expect(parts.refresher.health.failingStores.isEmpty)
  }

  // MARK: A purchase that starts later

  @Test("a purchase starting beyond the clock-skew tolerance is checked at its start, not a day later")
  func futureStartCheckedAtStart() async throws {
    let parts = WorkerParts()
    let startsAt = parts.now + 2 * 3_600_000
    let first = try await Self.verified(
      parts, "otx-1",
      .monthly("otx-1", purchasedAtMs: startsAt, expiresAtMs: startsAt + 30 * Self.day, asOfMs: parts.now))
    #expect(first.nextCheckAtMs == startsAt + parts.settings.recheckDelayMs)
  }
}

extension StoreAnswerTrustTests {
  @Test("past the leeway, an unsigned answer that repeats the old one is not a lapse: the outage policy holds")
  func repeatedAnswerPastExpiry() async throws {
    let parts = WorkerParts(store: .amazon)
    let expiry = WorkerParts.start + 30 * Self.day
    let first = try await Self.verified(parts, "r1", Self.receipt(parts, "r1", expiresAtMs: expiry))
    // Two days past the expiry (the renewal leeway is one), the store answers what it answered then.
    parts.clock.set(expiry + 2 * Self.day)
    parts.gateway.answer("r1", .success(Self.receipt(parts, "r1", expiresAtMs: expiry)))
    await parts.rescheduler.reverify(try await stored(parts, "r1"))
    let held = try await stored(parts, "r1")
    #expect(held.history.transactions == first.history.transactions)
    #expect(held.reason == StateReason.storeUnreachable.rawValue)
    #expect(held.accessEndsAtMs > parts.now)
    #expect(!(await parts.storage.events(userId: "alice").map(\.kind).contains("expired")))
    // Past the outage leeway the same answer is taken at its word.
    parts.clock.set(expiry + parts.settings.storeOutageLeewayMs + Self.day)
    await parts.rescheduler.reverify(try await stored(parts, "r1"))
    #expect(try await stored(parts, "r1").state == .expired)
  }
}

extension StoreAnswerTrustTests {
  @Test("while the store is failing, a renewing subscriber in their period already has access to the outage limit")
  func outageReachesAheadOfTheCheck() {
    let parts = WorkerParts()
    let expiry = parts.now + 10 * Self.day
    let history = VerifiedChain.monthly("otx-1", purchasedAtMs: parts.now, expiresAtMs: expiry, asOfMs: parts.now)
      .history
    let healthy = ChainEvaluator(catalog: parts.catalog, settings: parts.settings)
    let failing = ChainEvaluator(catalog: parts.catalog, settings: parts.settings, failingStores: [.appStore])
    #expect(
      healthy.evaluate(history, at: parts.now).accessEndsAtMs == expiry + parts.catalog.gracePolicy.renewalLeewayMs)
    let held = failing.evaluate(history, at: parts.now)
    #expect(held.accessEndsAtMs == expiry + parts.settings.storeOutageLeewayMs)
    #expect(held.state == .active)
    // Not for one that will not renew.
    let ending = VerifiedChain.monthly(
      "otx-2", purchasedAtMs: parts.now, expiresAtMs: expiry, willRenew: false, asOfMs: parts.now
    ).history
    #expect(failing.evaluate(ending, at: parts.now).accessEndsAtMs == expiry)
  }
}
