/// A write refused because what it was based on changed under it: another worker (or a later
/// claim of this one) got there first. Nothing was written. It is never the store's trouble and
/// never a reason to change anyone's state: the work it belonged to is done by whoever holds it
/// now, or done again from what storage holds now.
public struct StorageConflict: Error, Sendable, Hashable, CustomStringConvertible {
  public enum Kind: String, Sendable, Hashable {
    /// An inbox item's or a due check's claim was lost: its lease expired and another claim
    /// (another worker's, or a later one) replaced it. The holder of the newer claim finishes it.
    case claimLost = "claim_lost"
    /// The chain was written since the version the change was computed from: read and verify
    /// the chain again (a retry of that chain), never write over the newer state.
    case chainChanged = "chain_changed"
    /// A named job lease (`JobLease`) is held by another worker now, or was taken over: the job's
    /// write is refused and the job stops until it holds the lease again.
    case leaseLost = "lease_lost"
  }

  public var kind: Kind
  public var message: String

  public init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }

  public var description: String { "\(kind.rawValue): \(message)" }
}
