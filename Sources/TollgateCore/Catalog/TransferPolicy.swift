/// What to do when a store purchase already bound to one user is presented by another (a shared
/// Apple ID, a restored purchase on a second account).
public enum TransferPolicy: String, Sendable, Hashable, Codable, CaseIterable {
  /// The purchase stays with the user it was first bound to. The default.
  case keepWithOriginalOwner = "keep_with_original_owner"
  /// The purchase moves to the user who presented it last.
  case transferToNewest = "transfer_to_newest"
  /// The purchase moves only when the original owner no longer has access through it.
  case transferIfInactive = "transfer_if_inactive"

  /// Decides who owns a purchase when `claimantUserId` presents it while `ownerUserId` holds it.
  ///
  /// - Parameter ownerHasAccess: whether the purchase currently grants the owner access.
  /// - Returns: the decision, to be recorded whatever it is.
  public func decide(
    purchaseSource: String, ownerUserId: String, claimantUserId: String, ownerHasAccess: Bool, atMs: Int64
  ) -> TransferDecision {
    let transfer: Bool
    if ownerUserId == claimantUserId {
      transfer = false
    } else {
      switch self {
      case .keepWithOriginalOwner: transfer = false
      case .transferToNewest: transfer = true
      case .transferIfInactive: transfer = !ownerHasAccess
      }
    }
    return TransferDecision(
      purchaseSource: purchaseSource,
      previousOwnerUserId: ownerUserId,
      claimantUserId: claimantUserId,
      ownerUserId: transfer ? claimantUserId : ownerUserId,
      transferred: transfer,
      policy: self,
      decidedAtMs: atMs
    )
  }
}

/// The outcome of a claim on a purchase bound to another user; recorded either way.
public struct TransferDecision: Sendable, Hashable, Codable {
  /// `EntitlementRecord.source` of the purchase.
  public var purchaseSource: String
  public var previousOwnerUserId: String
  public var claimantUserId: String
  /// Who owns the purchase after the decision.
  public var ownerUserId: String
  public var transferred: Bool
  public var policy: TransferPolicy
  public var decidedAtMs: Int64

  public init(
    purchaseSource: String, previousOwnerUserId: String, claimantUserId: String, ownerUserId: String,
    transferred: Bool, policy: TransferPolicy, decidedAtMs: Int64
  ) {
    self.purchaseSource = purchaseSource
    self.previousOwnerUserId = previousOwnerUserId
    self.claimantUserId = claimantUserId
    self.ownerUserId = ownerUserId
    self.transferred = transferred
    self.policy = policy
    self.decidedAtMs = decidedAtMs
  }
}
