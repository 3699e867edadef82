import Testing
import TollgateCore

@testable import TollgateWorker

@Suite("Reconciler")
struct ReconcilerTests {
  @Test(
    "a chain is evaluated at the moment the store was asked, scheduled after its expiry, and written with its evidence")
  func evaluatesAtObservation() async throws {
    let parts = WorkerParts()
    let asked = parts.now
    let chain = parts.boughtNow("otx-1", expiresInMs: 60_000)
    parts.clock.advance(byMs: 120_000)  // the answer came late: the period has ended by now
    let outcome = try await parts.reconciler.apply(
      chain, observedAtMs: asked, claimant: "alice", completes: nil, reason: "t")
    #expect(outcome.state == .active)
    #expect(outcome.ownerUserId == "alice")
    let stored = try #require(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1"))
    #expect(stored.verifiedAtMs == asked)
    #expect(stored.nextCheckAtMs == asked + 60_000 + parts.settings.recheckDelayMs)
    #expect(stored.evidence.source == "fake_store")
    #expect(stored.appId == FakeStoreGateway.appId)
    #expect(await parts.storage.transactions.map(\.storeTransactionId) == [chain.transactions[0].storeTransactionId])
  }

  @Test("under keep-with-original-owner, another user's claim is refused and the owner keeps it")
  func transferRefused() async throws {
    let parts = WorkerParts(transferPolicy: .keepWithOriginalOwner)
    let chain = parts.boughtNow("otx-1")
    try await parts.reconciler.apply(chain, observedAtMs: parts.now, claimant: "alice", completes: nil, reason: "t")
    let id = try await parts.storage.enqueue(
      PurchaseSubmission(userId: "bob", store: .appStore, receipt: "otx-1"), nowMs: parts.now)
    let claimed = await parts.storage.claimInbox(nowMs: parts.now, limit: 1, leaseMs: 60_000, excluding: [])
    let outcome = try await parts.reconciler.apply(
      chain, observedAtMs: parts.now, claimant: "bob", completes: claimed.first?.claim, reason: "t")
    #expect(outcome.ownerUserId == "alice")
    #expect(outcome.refusal?.contains("bound to another user") == true)
    #expect(await parts.storage.item(id)?.status == .rejected)
    #expect(await parts.storage.events(userId: "alice").map(\.kind) == ["purchased", "transfer_refused"])
    #expect(await parts.storage.entitlements(userId: "bob").isEmpty)
    #expect(await parts.storage.entitlements(userId: "alice").count == 1)
  }

  @Test("under transfer-to-newest, the claimant gets it and the previous owner's entitlements are recomputed away")
  func transferred() async throws {
    let parts = WorkerParts(transferPolicy: .transferToNewest)
    let chain = parts.boughtNow("otx-1")
    try await parts.reconciler.apply(chain, observedAtMs: parts.now, claimant: "alice", completes: nil, reason: "t")
    let outcome = try await parts.reconciler.apply(
      chain, observedAtMs: parts.now, claimant: "bob", completes: nil, reason: "t")
    #expect(outcome.ownerUserId == "bob")
    #expect(outcome.refusal == nil)
    #expect(await parts.storage.entitlements(userId: "alice").isEmpty)
    #expect(await parts.storage.entitlements(userId: "bob").map(\.entitlement) == ["premium"])
    #expect(await parts.storage.events(userId: "bob").map(\.kind).contains("transferred"))
  }

  @Test("a chain nobody submitted is bound to its appAccountToken only when the setting asks for it")
  func appAccountToken() async throws {
    let token = "5F2A6E1C-0000-4000-8000-000000000001"
    let off = WorkerParts()
    try await off.reconciler.apply(
      off.boughtNow("otx-1", appAccountToken: token), observedAtMs: off.now, claimant: nil, completes: nil, reason: "t")
    #expect(await off.storage.subscription(store: .appStore, purchaseId: "otx-1")?.userId == nil)

    let on = WorkerParts { $0.bindAppAccountToken = true }
    try await on.reconciler.apply(
      on.boughtNow("otx-1", appAccountToken: token), observedAtMs: on.now, claimant: nil, completes: nil, reason: "t")
    #expect(await on.storage.subscription(store: .appStore, purchaseId: "otx-1")?.userId == token.lowercased())
    #expect(await on.storage.events(userId: token.lowercased()).map(\.kind) == ["purchased"])
  }

  @Test("a renewal read later derives `renewed` and moves the next check")
  func renewal() async throws {
    let parts = WorkerParts()
    let start = parts.now
    try await parts.reconciler.apply(
      parts.boughtNow("otx-1"), observedAtMs: start, claimant: "alice", completes: nil, reason: "t")
    parts.clock.advance(byMs: 30 * WorkerParts.day)
    let renewed = VerifiedChain.monthly(
      "otx-1", purchasedAtMs: start, expiresAtMs: start + 60 * WorkerParts.day, asOfMs: parts.now)
    try await parts.reconciler.apply(renewed, observedAtMs: parts.now, claimant: nil, completes: nil, reason: "t")
    #expect(await parts.storage.events(userId: "alice").map(\.kind) == ["purchased", "renewed"])
    let stored = try #require(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1"))
    #expect(stored.userId == "alice")
    #expect(stored.expiresAtMs == start + 60 * WorkerParts.day)
  }
}
