/// What a submission proves about who bought the purchase it names, as the store's gateway judged
/// it (issue 17). The reconciler weighs a claim by it (`Claim`): a bare identifier binds a purchase
/// nobody owns only for a trusted caller, or when the purchase's own app account token names the
/// claimant; only evidence the store vouches for, and fresh, moves a purchase bound to another user.
public struct ClaimEvidence: Sendable, Hashable {
  /// The store vouches for what was submitted: a payload it signed (a signed transaction, an app
  /// receipt), or an id it answers only together with the app's or the buyer's own credentials (a
  /// Google purchase token with its package, an Amazon receipt id with its user id). False for an
  /// id anyone who has seen it can copy (a bare App Store transaction id). Enough to bind a
  /// purchase nobody owns; moving one bound to another user also needs `transferRefusal` nil.
  public var isVouchedByStore: Bool
  /// Why this evidence cannot move a purchase bound to another user (a bare id, a signed payload
  /// older than the store's freshness window), in words a caller can act on; nil when it can.
  public var transferRefusal: String?
  /// When the store signed what was submitted, when it says.
  public var signedAtMs: Int64?
  /// A trusted caller (`admin`, or a server without callers) may still move a purchase bound to
  /// another user on this evidence despite `transferRefusal`: the store signs nothing its buyer
  /// alone holds, so the operator's word is the only proof there can be (Amazon, issue 25 item 7).
  public var trustedCallerMayTransfer: Bool

  public init(
    isVouchedByStore: Bool, transferRefusal: String?, signedAtMs: Int64? = nil, trustedCallerMayTransfer: Bool = false
  ) {
    self.isVouchedByStore = isVouchedByStore
    self.transferRefusal = transferRefusal
    self.signedAtMs = signedAtMs
    self.trustedCallerMayTransfer = trustedCallerMayTransfer
  }

  /// An id anyone who has seen it can copy; `advice` says what to submit instead.
  public static func identifierOnly(_ advice: String) -> ClaimEvidence {
    ClaimEvidence(isVouchedByStore: false, transferRefusal: advice)
  }

  /// Evidence the store vouches for, fresh enough to move a purchase bound to another user.
  public static func vouched(signedAtMs: Int64? = nil) -> ClaimEvidence {
    ClaimEvidence(isVouchedByStore: true, transferRefusal: nil, signedAtMs: signedAtMs)
  }

  /// Evidence the store vouches for that still cannot move a purchase bound to another user
  /// (`reason`: it is stale, say).
  public static func vouched(signedAtMs: Int64?, notForTransfer reason: String) -> ClaimEvidence {
    ClaimEvidence(isVouchedByStore: true, transferRefusal: reason, signedAtMs: signedAtMs)
  }

  /// Evidence the store vouches for, dated `signedAtMs` (when it signed it, or the only time it
  /// signs into it): it moves a purchase bound to another user only within `freshnessMs` of that
  /// date, since a copy made long ago proves nothing about who holds the purchase now. `undated`
  /// is the refusal without a date; `stale(age, window)` words the one for an old copy.
  public static func dated(
    _ signedAtMs: Int64?, freshnessMs: Int64, nowMs: Int64, undated: String,
    stale: (_ age: String, _ window: String) -> String
  ) -> ClaimEvidence {
    guard let signedAtMs else { return .vouched(signedAtMs: nil, notForTransfer: undated) }
    let ageMs = nowMs - signedAtMs
    guard ageMs > freshnessMs else { return .vouched(signedAtMs: signedAtMs) }
    return .vouched(signedAtMs: signedAtMs, notForTransfer: stale(describe(ageMs), describe(freshnessMs)))
  }

  /// A duration in the largest whole unit that fits: 26 h, 5 min, 800 ms.
  static func describe(_ ms: Int64) -> String {
    if ms >= 3_600_000 { return "\(ms / 3_600_000) h" }
    if ms >= 60_000 { return "\(ms / 60_000) min" }
    return "\(ms) ms"
  }

  /// An id the store answers for only with its buyer's own id beside it, from a store that signs
  /// nothing the buyer holds (an Amazon receipt id with its Amazon user id): it binds a purchase
  /// nobody owns for any caller, but anyone who has read both ids (GetSubscription, a copy of the
  /// database) could present them, so it moves a purchase bound to another user only for a
  /// trusted caller; `reason` says so to the others.
  public static func vouchedWithoutSignature(_ reason: String) -> ClaimEvidence {
    ClaimEvidence(isVouchedByStore: true, transferRefusal: reason, trustedCallerMayTransfer: true)
  }

  /// What a gateway that says nothing about a submission's evidence is taken to have submitted.
  static let unknown = ClaimEvidence.identifierOnly(
    "the submission carries nothing the store vouches for (a signed payload, or an id with its owner's credentials)")
}
