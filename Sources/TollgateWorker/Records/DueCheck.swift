import TollgateCore

/// A scheduled check of a chain, claimed by one worker (`WorkerStorage.claimDueChecks`): nobody
/// else is handed it until the claim's lease ends, and the postponement of a failed check carries
/// `claimToken`, refused (`StorageConflict.claimLost`) once another claim replaced this one.
public struct DueCheck: Sendable, Hashable {
  /// The chain as stored once claimed: its `nextCheckAtMs` is the end of the claim's lease.
  public var subscription: StoredSubscription
  /// The claim's fencing token: nonzero, never the token of an earlier claim of this chain.
  public var claimToken: Int64

  public init(subscription: StoredSubscription, claimToken: Int64) {
    self.subscription = subscription
    self.claimToken = claimToken
  }
}

extension DueCheck {
  /// This check's claim, to renew it while the check waits or runs (`WorkerStorage.renewCheckClaims`).
  public var claim: CheckClaim {
    CheckClaim(store: subscription.store, purchaseId: subscription.purchaseId, claimToken: claimToken)
  }
}

/// One claim of a chain's scheduled check: the chain and the fencing token its claim handed out.
public struct CheckClaim: Sendable, Hashable {
  public var store: Store
  public var purchaseId: String
  public var claimToken: Int64

  public init(store: Store, purchaseId: String, claimToken: Int64) {
    self.store = store
    self.purchaseId = purchaseId
    self.claimToken = claimToken
  }
}
