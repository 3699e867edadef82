import TollgateCore
import TollgateWorker

extension FakeWorkerStorage {
  /// The actor is the one writer: the same arithmetic as every storage (`StoreCallWindow`).
  package func reserveStoreCalls(_ store: Store, windowStartMs: Int64, wanted: Int, limit: Int) async throws -> Int {
    let stored = storeCallWindows[store].map { (startMs: $0.startMs, used: $0.used) }
    let budget = StoreCallWindow(stored: stored, windowStartMs: windowStartMs).granting(wanted, limit: limit)
    storeCallWindows[store] = budget.window
    return budget.granted
  }
}
