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
