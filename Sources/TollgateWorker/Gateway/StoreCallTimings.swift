import CoreMetrics
import Synchronization
import TollgateCore

/// How long each call to a store's API takes, as the histogram
/// `tollgate_store_call_duration_seconds{store,call}`: every gateway's calls go through its
/// `StoreCallLimiter`, which times the call itself (not the wait for its permit or budget) and
/// reports here once the worker has attached it (`StoreCallLimiter.report(to:store:)`). `call` is
/// a name the gateway's code gives (bounded: one per API the store offers).
public final class StoreCallTimings: Sendable {
  private let factory: any MetricsFactory
  private let timers = Mutex<[String: Timer]>([:])

  init(factory: any MetricsFactory) {
    self.factory = factory
  }

  func record(store: Store, call: String, nanoseconds: Int64) {
    let key = "\(store.rawValue) \(call)"
    let timer = timers.withLock { timers in
      if let timer = timers[key] { return timer }
      let timer = Timer(
        label: WorkerMetrics.storeCallDuration, dimensions: [("store", store.rawValue), ("call", call)],
        factory: factory)
      timers[key] = timer
      return timer
    }
    timer.recordNanoseconds(max(0, nanoseconds))
  }
}
