import TollgateCore

/// Who owns a purchase after a claim was weighed, and what is recorded about it (issue 17):
/// 1. With `bindAppAccountToken`, a claim by another user than the purchase's app account token
///    names is refused (`claim_refused`), and the named user owns the purchase.
/// 2. The owner's own claim changes nothing.
/// 3. A purchase bound to another user moves only when the transfer policy says so *and* the
///    submission carries evidence the store vouches for that is fresh (`ClaimEvidence.transferRefusal`
///    is nil), or, from a store that signs nothing (Amazon), a trusted caller submitted it
///    (`trustedCallerMayTransfer`); otherwise the claim is refused and the owner keeps it
///    (`transfer_refused`).
/// 4. A purchase nobody owns goes to the claimant, unless the claim is a bare identifier from an
///    untrusted caller and the purchase's app account token does not name the claimant: then it is
///    refused (`claim_refused`) and stays unbound.
/// 5. A purchase a GDPR erase unbound (`erased`, issue 28) goes to a claimant only on evidence the
///    store vouches for that is fresh (`ClaimEvidence.transferRefusal` nil), or from a trusted
///    caller on a store that signs nothing (`trustedCallerMayTransfer`); anything else is refused
///    (`claim_refused`, recorded for the claimant) and it stays unbound. Rule 1 never binds it to
///    the user its token names, nor records its refusal for that user: the token is the erased
///    user's.
struct ClaimRuling: Sendable {
  var owner: String?
  var refusal: String?
  var events: [WorkerEvent] = []
  /// The previous owner, whose entitlements the move took away.
  var previousOwner: String?

  init(
    claim: Claim, owner: String?, chain: VerifiedChain, evaluation: SubscriptionEvaluation,
    policy: TransferPolicy, bindAppAccountToken: Bool, erased: Bool = false, nowMs now: Int64
  ) {
    let claimant = claim.userId
    let token = chain.appAccountToken.flatMap { $0.isEmpty ? nil : $0.lowercased() }
    let tokenNamesClaimant = token == claimant.lowercased()
    func event(_ kind: String, for userId: String?, _ detail: String) -> WorkerEvent {
      WorkerEvent(
        userId: userId, kind: kind, store: chain.store, purchaseId: chain.purchaseId,
        productId: evaluation.productId, state: evaluation.state, atMs: now, detail: detail)
    }
    self.owner = owner

    if bindAppAccountToken, let token, !tokenNamesClaimant {
      // The app told the store who the buyer is (appAccountToken, obfuscatedExternalAccountId),
      // and it is someone else: a copied receipt or token is refused, and the refusal recorded.
      refusal = "the purchase names another buyer (its app account token is not this user's)"
      events.append(
        event(
          "claim_refused", for: erased && owner == nil ? claimant : owner ?? token,
          "claimed by \(claimant), whose id differs from the purchase's app account token"))
      if owner == nil, !erased { self.owner = token }
    } else if let current = owner, current != claimant {
      let decision = policy.decide(
        purchaseSource: chain.history.source, ownerUserId: current, claimantUserId: claimant,
        ownerHasAccess: evaluation.isEntitled, atMs: now)
      if !decision.transferred {
        refusal = "this purchase is bound to another user (transfer policy \(decision.policy.rawValue))"
        events.append(
          event("transfer_refused", for: current, "claimed by \(claimant) under \(decision.policy.rawValue)"))
      } else if let why = claim.evidence.transferRefusal,
        !(claim.evidence.trustedCallerMayTransfer && claim.isCallerTrusted)
      {
        // The policy would move it, but what was submitted does not show the claimant holds the
        // purchase now: anyone who once saw an id or a signed payload could present it.
        let proof =
          claim.evidence.trustedCallerMayTransfer ? "for an admin caller" : "on a fresh payload the store signed"
        refusal =
          "this purchase is bound to another user; transfer policy \(decision.policy.rawValue) moves it only "
          + "\(proof): \(why)"
        events.append(
          event(
            "transfer_refused", for: current,
            "claimed by \(claimant) under \(decision.policy.rawValue), not moved: \(why)"))
      } else {
        self.owner = claimant
        previousOwner = current
        events.append(event("transferred", for: claimant, "from \(current) under \(decision.policy.rawValue)"))
      }
    } else if owner == nil, erased,
      let why = claim.evidence.transferRefusal, !(claim.evidence.trustedCallerMayTransfer && claim.isCallerTrusted)
    {
      refusal = "\(Self.erasedRefusal): \(why)"
      events.append(event("claim_refused", for: claimant, "\(Self.erasedRefusal); the purchase stays unbound"))
    } else if owner == nil, !claim.evidence.isVouchedByStore, !claim.isCallerTrusted, !tokenNamesClaimant {
      refusal = claim.evidence.transferRefusal ?? ClaimEvidence.unknown.transferRefusal
      events.append(
        event(
          "claim_refused", for: claimant,
          "claimed with a bare identifier by a caller not trusted with one; the purchase stays unbound"))
    } else if owner == nil {
      self.owner = claimant
    }
  }

  /// Why a claim on an erased purchase is refused (rule 5).
  static let erasedRefusal = "the purchase was unbound by an erasure; a claim needs a fresh payload the store signed"
}
