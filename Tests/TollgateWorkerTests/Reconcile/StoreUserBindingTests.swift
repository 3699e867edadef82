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
}
