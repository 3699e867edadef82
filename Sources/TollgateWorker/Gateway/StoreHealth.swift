import Synchronization
import TollgateCore

/// Per store, whether reading from it is failing now, and since when: the outage policy
/// (`ChainEvaluator`) keeps renewing subscribers in while it is, and the first success after a
/// failure ends the outage (postponed work for that store is then retried at once).
final class StoreHealth: Sendable {
  private let failingSince = Mutex<[Store: Int64]>([:])

  /// A call to `store` failed for a reason that is not the buyer's (transient, or the operator's).
  func failed(_ store: Store, atMs: Int64) {
    failingSince.withLock { if $0[store] == nil { $0[store] = atMs } }
  }

  /// A call to `store` succeeded; returns true when this ends an outage.
  func succeeded(_ store: Store) -> Bool {
    failingSince.withLock { $0.removeValue(forKey: store) != nil }
  }

  var failingStores: Set<Store> { failingSince.withLock { Set($0.keys) } }

  /// Since when calls to each failing store have been failing.
  var outages: [Store: Int64] { failingSince.withLock { $0 } }
}
