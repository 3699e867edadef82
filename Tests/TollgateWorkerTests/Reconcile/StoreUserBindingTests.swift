import Testing
import TollgateCore

@testable import TollgateWorker

/// The store's own id of a buyer (the Amazon user id that owns a receipt), kept with the binding.
@Suite("The store's user id with the binding")
struct StoreUserBindingTests {
  static let day = WorkerParts.day

  func withStoreUser(_ chain: VerifiedChain, _ storeUserId: String) -> VerifiedChain {
    var chain = chain
    chain.storeUserId = storeUserId
    return chain
  }

  @Test("a notification for a buyer already bound finds its user; another buyer's stays unbound")
  func notificationFindsOwner() async throws {
    let parts = WorkerParts(store: .amazon)
    let first = withStoreUser(parts.boughtNow("receipt-1"), "amzn-alice")
    try await parts.reconciler.apply(first, observedAtMs: parts.now, claimant: "alice", completes: nil, reason: "t")
    let stored = try #require(await parts.storage.subscription(store: .amazon, purchaseId: "receipt-1"))
    #expect(stored.storeUserId == "amzn-alice")

    // A renewal's new receipt arrives by notification before the app submits it.
    parts.clock.advance(byMs: 30 * Self.day)
    let renewal = withStoreUser(parts.boughtNow("receipt-2"), "amzn-alice")
    let outcome = try await parts.reconciler.apply(
      renewal, observedAtMs: parts.now, claimant: nil, completes: nil, reason: "SUBSCRIPTION_RENEWED")
    #expect(outcome.ownerUserId == "alice")

    let stranger = withStoreUser(parts.boughtNow("receipt-9"), "amzn-bob")
    let unbound = try await parts.reconciler.apply(
      stranger, observedAtMs: parts.now, claimant: nil, completes: nil, reason: "SUBSCRIPTION_PURCHASED")
    #expect(unbound.ownerUserId == nil)

    // A later answer without the buyer keeps the one recorded.
    var thin = renewal
    thin.storeUserId = nil
    try await parts.reconciler.apply(thin, observedAtMs: parts.now, claimant: nil, completes: nil, reason: "check")
    #expect(
      try #require(await parts.storage.subscription(store: .amazon, purchaseId: "receipt-2")).storeUserId
        == "amzn-alice")
  }

  @Test("chains the store says a change touched (relatedReceipts) are read again soon")
  func relatedChainsComeDue() async throws {
    let parts = WorkerParts(store: .amazon) { $0.sweepIntervalMs = 10 * Self.day }
    let old = withStoreUser(parts.boughtNow("receipt-old"), "amzn-alice")
    try await parts.reconciler.apply(old, observedAtMs: parts.now, claimant: "alice", completes: nil, reason: "t")
    let scheduled = try #require(await parts.storage.subscription(store: .amazon, purchaseId: "receipt-old"))
    #expect(try #require(scheduled.nextCheckAtMs) > parts.now + Self.day)

    parts.clock.advance(byMs: 3_600_000)
    parts.gateway.answer("receipt-new", .success(withStoreUser(parts.boughtNow("receipt-new"), "amzn-alice")))
    let reference = ChainReference(
      store: .amazon, appId: FakeStoreGateway.appId, lookupId: "receipt-new", purchaseId: "receipt-new",
      environment: nil, storeUserId: "amzn-alice", relatedPurchaseIds: ["receipt-old", "receipt-unknown"])
    try await parts.refresher.refresh(
      reference, claimant: nil, completes: nil, reason: "SUBSCRIPTION_MODIFIED_IMMEDIATE")
    let due = try #require(await parts.storage.subscription(store: .amazon, purchaseId: "receipt-old"))
    #expect(due.nextCheckAtMs == parts.now)
    #expect(await parts.claimDue().map(\.subscription.purchaseId) == ["receipt-old"])
  }
}
