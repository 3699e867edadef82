import Testing
import TollgateCore

@testable import TollgateWorker

/// What the worker does for Google Play through its seams, with fakes: a new purchase token that
/// links to a replaced one, acknowledgements, and the store sweep of voided purchases.
@Suite("Linked purchases, acknowledgements and the store sweep")
struct GooglePlaySeamTests {
  static let day = WorkerParts.day

  /// `chain` as the purchase that replaced `linked` (Google's linkedPurchaseToken).
  func linking(_ chain: VerifiedChain, to linked: String) -> VerifiedChain {
    var chain = chain
    chain.history.linkedPurchaseToken = linked
    return chain
  }

  func entitled(_ parts: WorkerParts, _ userId: String) async -> Bool {
    await parts.storage.entitlements(userId: userId).contains { $0.isActive(atMs: parts.now) }
  }

  @Test("a new token inherits the owner of the token it replaces; the old one never grants again")
  func linkedTokenInheritsOwner() async throws {
    let parts = WorkerParts(store: .googlePlay)
    let old = parts.boughtNow("tok-old")
    try await parts.reconciler.apply(old, observedAtMs: parts.now, claimant: "alice", completes: nil, reason: "t")
    parts.clock.advance(byMs: Self.day)
    // An upgrade arrives by notification before the app submits it: nobody claims it, yet it is Alice's.
    let upgraded = linking(parts.boughtNow("tok-new"), to: "tok-old")
    let outcome = try await parts.reconciler.apply(
      upgraded, observedAtMs: parts.now, claimant: nil, completes: nil, reason: "RTDN SUBSCRIPTION_PURCHASED (4)")
    #expect(outcome.ownerUserId == "alice")
    // The replaced purchase is read again soon, so its own state shows the replacement.
    let replaced = try #require(await parts.storage.subscription(store: .googlePlay, purchaseId: "tok-old"))
    #expect(replaced.nextCheckAtMs == parts.now)

    // Bob presents Alice's new token: the transfer policy (keep) refuses him.
    let claim = try await parts.reconciler.apply(
      upgraded, observedAtMs: parts.now, claimant: "bob", completes: nil, reason: "purchase")
    #expect(claim.refusal != nil)
    #expect(await entitled(parts, "alice"))
    #expect(!(await entitled(parts, "bob")))

    // The new token is refunded; the old token's answer still shows a month left, but it was
    // replaced when the new one began: Alice has no access.
    parts.clock.advance(byMs: Self.day)
    var refunded = upgraded
    refunded.history.transactions[0].revocationDateMs = parts.now
    refunded.history.transactions[0].revocationReason = .refunded
    try await parts.reconciler.apply(refunded, observedAtMs: parts.now, claimant: nil, completes: nil, reason: "voided")
    try await parts.reconciler.apply(old, observedAtMs: parts.now, claimant: nil, completes: nil, reason: "late read")
    #expect(!(await entitled(parts, "alice")))
    // The old token's access ended by replacement, not by a refund of it.
    let oldEvents = await parts.storage.events(userId: "alice").filter { $0.purchaseId == "tok-old" }.map(\.kind)
    #expect(oldEvents.first == "purchased")
    #expect(!oldEvents.contains("refunded") && !oldEvents.contains("revoked"), "\(oldEvents)")
  }

  @Test("a bound purchase the store waits on is acknowledged; a failure is retried sooner, access unchanged")
  func acknowledgement() async throws {
    let parts = WorkerParts(store: .googlePlay)
    var bought = parts.boughtNow("tok-1")
    bought.acknowledgement = PendingAcknowledgement(deadlineMs: parts.now + 3 * Self.day)
    parts.gateway.answer("tok-1", .success(bought))
    parts.gateway.state.withLock { $0.acknowledgeFailures = [StoreFailure(.transient, "Google answered 503")] }

    // Nobody owns it yet (a notification came first): nothing is acknowledged for nobody.
    let reference = ChainReference(
      store: .googlePlay, appId: FakeStoreGateway.appId, lookupId: "tok-1", purchaseId: "tok-1", environment: nil)
    try await parts.refresher.refresh(reference, claimant: nil, completes: nil, reason: "notification")
    #expect(parts.gateway.state.withLock { $0.acknowledged }.isEmpty)
    #expect(parts.acknowledgements.counts(nowMs: parts.now) == (pending: 1, urgent: 0))

    // Alice submits it: acknowledging fails once; her access does not wait on it.
    try await parts.refresher.refresh(reference, claimant: "alice", completes: nil, reason: "purchase")
    #expect(await entitled(parts, "alice"))
    let postponed = try #require(await parts.storage.subscription(store: .googlePlay, purchaseId: "tok-1"))
    let retryAt = try #require(postponed.nextCheckAtMs)
    #expect(retryAt > parts.now && retryAt <= parts.now + parts.settings.backoffMaxMs)
    #expect(parts.acknowledgements.counts(nowMs: parts.now + 2 * Self.day + 1) == (pending: 1, urgent: 1))

    // The check comes due and reads the purchase again: this time it is acknowledged.
    parts.clock.advance(byMs: retryAt - parts.now)
    await parts.rescheduler.reverify(postponed)
    #expect(parts.gateway.state.withLock { $0.acknowledged } == ["tok-1"])
    #expect(parts.acknowledgements.counts(nowMs: parts.now) == (pending: 0, urgent: 0))
    #expect(await entitled(parts, "alice"))
  }

  @Test("the sweep reads a stored chain with a refund it does not hold yet, and only that")
  func sweep() async throws {
    let parts = WorkerParts(store: .googlePlay)
    let bought = parts.boughtNow("tok-1")
    try await parts.reconciler.apply(bought, observedAtMs: parts.now, claimant: "alice", completes: nil, reason: "t")
    parts.clock.advance(byMs: Self.day)
    let voidedAt = parts.now - 60_000
    // Google's purchase resource never mentions the refund: it comes from the voided purchases list.
    parts.gateway.answer("tok-1", .success(bought))
    let revocation = ReportedRevocation(orderId: nil, revokedAtMs: voidedAt, reason: .refunded)
    let references = ["tok-1", "tok-never-seen"].map {
      ChainReference(
        store: .googlePlay, appId: FakeStoreGateway.appId, lookupId: $0, purchaseId: $0, environment: nil,
        revocations: [revocation])
    }
    parts.gateway.state.withLock { $0.sweepAnswer = .success(references) }

    #expect(await parts.sweeper.sweepOnce(sinceMs: parts.now - 30 * Self.day) == 1)
    #expect(parts.gateway.fetched.map(\.lookupId) == ["tok-1"])

    #expect(!(await entitled(parts, "alice")))
    let stored = try #require(await parts.storage.subscription(store: .googlePlay, purchaseId: "tok-1"))
    #expect(stored.state == .revoked)
    // A later read of the same answer does not undo it.
    await parts.rescheduler.reverify(stored)
    #expect(!(await entitled(parts, "alice")))
    // Already applied: the next sweep does not read it again.
    #expect(await parts.sweeper.sweepOnce(sinceMs: parts.now - 2 * Self.day) == 0)
    #expect(parts.gateway.fetched.count == 2)

    // A failing sweep changes nothing and is counted.
    parts.gateway.state.withLock { $0.sweepAnswer = .failure(StoreFailure(.transient, "Google answered 500")) }
    #expect(await parts.sweeper.sweepOnce(sinceMs: parts.now - 2 * Self.day) == 0)
    #expect(parts.stats.snapshot.storeFailures == 1)
  }
}
