import CoreMetrics
import Synchronization
import TollgateCore

/// What the worker has been through, as metrics (swift-metrics; the executable exports them for
/// Prometheus at `/metrics`) and as a summary for `/health`. Failures stay visible even though
/// they never change anyone's entitlements.
final class WorkerStats: Sendable {
  struct Snapshot: Sendable {
    var verified = 0
    var rejected = 0
    var storeFailures = 0
    var webhookFailures = 0
    /// Notification requests answered without being stored, by outcome (refused, acknowledged).
    var notificationsNotStored: [String: Int] = [:]
    var lastStoreFailureAtMs: Int64?
    var lastStoreError: String?
  }

  private let state = Mutex(Snapshot())
  private let verifiedCounter: Counter
  private let rejectedCounter: Counter
  /// One per configured store.
  private let storeFailureCounters: [Store: Counter]
  /// One per configured store and retried failure kind.
  private let storeRetryCounters: [String: Counter]
  private let webhookFailureCounter: Counter
  /// Per webhook endpoint: what it has not received, and what was parked.
  let webhooks: WebhookMetrics
  /// What is read from storage (and the acknowledgements this worker waits on) at each scrape.
  let gauges: WorkerGauges
  /// How long each store call takes, by store and call (`StoreCallLimiter`).
  let storeCalls: StoreCallTimings
  private let factory: any MetricsFactory
  private let notStoredCounters = Mutex<[String: Counter]>([:])

  /// Dimensions are bounded: outcome and store, never a user or a purchase.
  init(factory: any MetricsFactory = NOOPMetricsHandler.instance, stores: [Store]) {
    verifiedCounter = Counter(label: WorkerMetrics.items, dimensions: [("outcome", "verified")], factory: factory)
    rejectedCounter = Counter(label: WorkerMetrics.items, dimensions: [("outcome", "rejected")], factory: factory)
    storeFailureCounters = Dictionary(
      uniqueKeysWithValues: stores.map { store in
        (store, Counter(label: WorkerMetrics.storeFailures, dimensions: [("store", store.rawValue)], factory: factory))
      })
    // Made up front, at 0, so that a rate over them exists before the first retry.
    var retries: [String: Counter] = [:]
    for store in stores {
      for kind in Self.retriedKinds {
        retries["\(store.rawValue) \(kind)"] = Counter(
          label: WorkerMetrics.storeRetries, dimensions: [("store", store.rawValue), ("kind", "\(kind)")],
          factory: factory)
      }
    }
    storeRetryCounters = retries
    webhookFailureCounter = Counter(label: WorkerMetrics.webhookFailures, factory: factory)
    webhooks = WebhookMetrics(factory: factory)
    gauges = WorkerGauges(factory: factory)
    storeCalls = StoreCallTimings(factory: factory)
    self.factory = factory
  }

  var snapshot: Snapshot { state.withLock { $0 } }

  func verified() {
    state.withLock { $0.verified += 1 }
    verifiedCounter.increment()
  }

  func rejected() {
    state.withLock { $0.rejected += 1 }
    rejectedCounter.increment()
  }

  /// A store call that failed (any kind but final) or could not be believed.
  func storeFailure(_ failure: StoreFailure, store: Store?, atMs: Int64) {
    state.withLock {
      $0.storeFailures += 1
      $0.lastStoreFailureAtMs = atMs
      $0.lastStoreError = failure.message
    }
    if let store { storeFailureCounters[store]?.increment() }
  }

  /// The failure kinds after which an item or a check is tried again (`gone` never is).
  static let retriedKinds: [StoreFailure.Kind] = [.transient, .needsOperator, .notFound, .final]

  /// An inbox item or a scheduled check put back for a retry after `failure`.
  func storeRetry(_ failure: StoreFailure, store: Store?) {
    guard let store else { return }
    storeRetryCounters["\(store.rawValue) \(failure.kind)"]?.increment()
  }

  /// A notification request refused (unauthenticated, malformed) or acknowledged without being
  /// stored (authentic but not a notification). Dimensions: the route and the outcome, both bounded.
  func notificationNotStored(route: String, outcome: String) {
    let key = "\(route) \(outcome)"
    // One counter per route and outcome, made the first time: a flood of forged requests costs a
    // dictionary lookup each, not a trip through the metrics factory.
    state.withLock { $0.notificationsNotStored[key, default: 0] += 1 }
    let counter = notStoredCounters.withLock { counters in
      if let counter = counters[key] { return counter }
      let counter = Counter(
        label: WorkerMetrics.notificationsNotStored, dimensions: [("route", route), ("outcome", outcome)],
        factory: factory)
      counters[key] = counter
      return counter
    }
    counter.increment()
  }

  /// A connection of an HTTP listener closed by its guard (`HTTPListenerLimits.Cut`): over the
  /// connection cap, a head or request not complete in time, a body trickling too slowly.
  /// Dimensions: the listener and the reason, both bounded.
  func httpConnectionCut(listener: String, reason: String) {
    let key = "http \(listener) \(reason)"
    let counter = notStoredCounters.withLock { counters in
      if let counter = counters[key] { return counter }
      let counter = Counter(
        label: WorkerMetrics.connectionsCut, dimensions: [("listener", listener), ("reason", reason)],
        factory: factory)
      counters[key] = counter
      return counter
    }
    counter.increment()
  }

  func webhookFailure() {
    state.withLock { $0.webhookFailures += 1 }
    webhookFailureCounter.increment()
  }

  var json: [String: Any] {
    let s = snapshot
    var object: [String: Any] = [
      "verified": s.verified, "rejected": s.rejected, "storeFailures": s.storeFailures,
      "webhookFailures": s.webhookFailures,
    ]
    if !s.notificationsNotStored.isEmpty { object["notificationsNotStored"] = s.notificationsNotStored }
    if let at = s.lastStoreFailureAtMs { object["lastStoreFailureAtMs"] = at }
    if let error = s.lastStoreError { object["lastStoreError"] = error }
    return object
  }
}
