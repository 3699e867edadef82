import CoreMetrics
import Synchronization

/// Webhook delivery as metrics, per endpoint (`WebhookSettings.displayName`, bounded by the config
/// file): what it has not received yet and how old the oldest of it is (read from storage at each
/// scrape, `WorkerGauges.refresh`), the events parked for an operator, and how many were parked
/// since the worker started.
final class WebhookMetrics: Sendable {
  private struct Gauges {
    var undelivered: Gauge
    var oldestAge: Gauge
    var parked: Gauge
    var parkedTotal: Counter
  }

  private let factory: any MetricsFactory
  private let gauges = Mutex<[String: Gauges]>([:])

  init(factory: any MetricsFactory) {
    self.factory = factory
  }

  private func gauges(_ endpoint: String) -> Gauges {
    gauges.withLock { all in
      if let existing = all[endpoint] { return existing }
      let dimensions = [("endpoint", endpoint)]
      let made = Gauges(
        undelivered: Gauge(label: WorkerMetrics.webhookBacklog, dimensions: dimensions, factory: factory),
        oldestAge: Gauge(label: WorkerMetrics.webhookOldestAge, dimensions: dimensions, factory: factory),
        parked: Gauge(label: WorkerMetrics.webhookParked, dimensions: dimensions, factory: factory),
        parkedTotal: Counter(label: WorkerMetrics.webhookParkedTotal, dimensions: dimensions, factory: factory))
      all[endpoint] = made
      return made
    }
  }

  /// Records `backlog` of `endpoint` as it stands at `nowMs`.
  func record(_ backlog: WebhookBacklog, endpoint: String, nowMs: Int64) {
    let gauges = gauges(endpoint)
    gauges.undelivered.record(backlog.undelivered)
    gauges.oldestAge.record(Double(backlog.oldestUndeliveredAtMs.map { max(nowMs - $0, 0) } ?? 0) / 1_000)
    gauges.parked.record(backlog.parked)
  }

  /// An event of `endpoint` was parked.
  func parked(endpoint: String) {
    gauges(endpoint).parkedTotal.increment()
  }

  /// `backlog` as `/health` shows it.
  static func json(_ backlog: WebhookBacklog, nowMs: Int64) -> [String: Any] {
    var object: [String: Any] = ["undelivered": backlog.undelivered, "parked": backlog.parked]
    if let oldest = backlog.oldestUndeliveredAtMs { object["oldestUndeliveredAgeMs"] = max(nowMs - oldest, 0) }
    return object
  }
}
