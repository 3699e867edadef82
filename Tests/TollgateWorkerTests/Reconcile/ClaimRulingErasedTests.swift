import Testing
import TollgateCore
import TollgateTesting

@testable import TollgateWorker

/// A purchase a GDPR erase unbound (issue 28, `ClaimRuling` rule 5): it binds again only on
/// fresh proof the store vouches for (or a trusted caller's word on a store that signs nothing);
/// a bare id or a stale signed payload is refused and recorded for the claimant; the app
/// account token, which names the erased user, binds it neither on a notification nor on a
/// claim; a claim that binds it clears `erasedAtMs`.
@Suite("Claims on a purchase a GDPR erase unbound")
struct ClaimRulingErasedTests {
  static let bare = ClaimEvidence.identifierOnly("a bare transaction id does not prove who bought it")
  static let stale = ClaimEvidence.vouched(signedAtMs: 1, notForTransfer: "the signed transaction is 3 days old")
  /// What an Amazon receipt is: the store vouches for it, signs nothing, and a trusted caller's
  /// word may move it.
  static let unsigned = ClaimEvidence(
    isVouchedByStore: true, transferRefusal: "Amazon signs nothing the buyer alone holds",
    trustedCallerMayTransfer: true)

  /// otx-1 bought by alice (fresh proof, bound to her), then erased.
  func erasedPurchase(token: String? = nil, configure: (inout WorkerSettings) -> Void = { _ in }) async throws
    -> (parts: WorkerParts, bought: VerifiedChain)
  {
    let parts = WorkerParts(configure: configure)
    let bought = parts.boughtNow("otx-1", appAccountToken: token)
    let first = try await parts.reconciler.apply(
      bought, observedAtMs: parts.now, claimant: "alice", completes: nil, reason: "purchase")
    #expect(first.ownerUserId == "alice")
    let counts = await parts.storage.eraseUser("alice", dryRun: false, nowMs: parts.now)
    #expect(counts.subscriptionsUnbound == 1)
    let stored = try #require(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1"))
    #expect(stored.userId == nil && stored.erasedAtMs == parts.now)
    return (parts, bought)
  }

  func claim(_ parts: WorkerParts, _ bought: VerifiedChain, by user: String, trusted: Bool?, _ evidence: ClaimEvidence)
    async throws -> Reconciler.Outcome
  {
    parts.clock.advance(byMs: 1_000)
    return try await parts.reconciler.apply(
      bought, observedAtMs: parts.now,
      claim: Claim(userId: user, callerIsTrusted: trusted, evidence: evidence), completes: nil, reason: "purchase")
  }

  /// The chain is still bound to nobody, still marked erased, and `user` got nothing but a refusal.
  func expectRefused(_ parts: WorkerParts, _ outcome: Reconciler.Outcome, user: String) async throws {
    #expect(outcome.ownerUserId == nil)
    #expect(outcome.refusal?.contains("unbound by an erasure") == true)
    let stored = try #require(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1"))
    #expect(stored.userId == nil && stored.erasedAtMs != nil)
    #expect(await parts.storage.entitlements(userId: user).isEmpty)
    let refused = try #require(await parts.storage.events(userId: user).last)
    #expect(refused.kind == "claim_refused" && refused.detail?.contains("unbound by an erasure") == true)
  }

  @Test("a bare id is refused, from a trusted caller too, and recorded for the claimant")
  func bareIdRefused() async throws {
    for trusted in [true, false, nil] as [Bool?] {
      let (parts, bought) = try await erasedPurchase()
      let outcome = try await claim(parts, bought, by: "bob", trusted: trusted, Self.bare)
      try await expectRefused(parts, outcome, user: "bob")
    }
  }

  @Test("a stale signed payload is refused, and so is an unsigned store's receipt from an untrusted caller")
  func staleSignedRefused() async throws {
    let (parts, bought) = try await erasedPurchase()
    try await expectRefused(parts, try await claim(parts, bought, by: "bob", trusted: true, Self.stale), user: "bob")
    try await expectRefused(
      parts, try await claim(parts, bought, by: "cy", trusted: false, Self.unsigned), user: "cy")
  }

  @Test("a fresh signed payload binds it and clears erasedAtMs; so does a trusted caller on an unsigned store")
  func freshSignedBinds() async throws {
    for (evidence, trusted) in [(ClaimEvidence.vouched(signedAtMs: 5), false), (Self.unsigned, true)] {
      let (parts, bought) = try await erasedPurchase()
      let outcome = try await claim(parts, bought, by: "carol", trusted: trusted, evidence)
      #expect(outcome.ownerUserId == "carol" && outcome.refusal == nil)
      let stored = try #require(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1"))
      #expect(stored.userId == "carol" && stored.erasedAtMs == nil)
      #expect(await parts.storage.entitlements(userId: "carol").map(\.entitlement) == ["premium"])
      // Bound again, it follows the usual rules: a bare id by someone else moves nothing.
      let later = try await claim(parts, bought, by: "dan", trusted: true, Self.bare)
      #expect(later.ownerUserId == "carol")
      #expect(await parts.storage.events(userId: "dan").isEmpty)
    }
  }

  @Test("the app account token binds an erased purchase neither on a notification nor on another user's claim")
  func tokenBindingSkipped() async throws {
    let (parts, bought) = try await erasedPurchase(token: "alice") { $0.bindAppAccountToken = true }
    // A notification: no claim, the token names the erased user.
    parts.clock.advance(byMs: 1_000)
    let notified = try await parts.reconciler.apply(
      bought, observedAtMs: parts.now, claim: nil, completes: nil, reason: "notification")
    #expect(notified.ownerUserId == nil)
    let stored = try #require(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1"))
    #expect(stored.userId == nil && stored.erasedAtMs != nil)
    // Another user's fresh claim: refused (the token names someone else), and bound to nobody,
    // the refusal recorded for the claimant, nothing written for the erased user.
    let foreign = try await claim(parts, bought, by: "bob", trusted: true, .vouched(signedAtMs: 5))
    #expect(foreign.ownerUserId == nil && foreign.refusal != nil)
    #expect(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1")?.userId == nil)
    #expect(await parts.storage.events(userId: "bob").map(\.kind) == ["claim_refused"])
    #expect(await parts.storage.events(userId: "alice").isEmpty)
    #expect(await parts.storage.entitlements(userId: "alice").isEmpty)
  }
}
