import CoreMetrics
import TollgateCore

/// The worker's gauges that show a state rather than count events: the inbox by state and the
/// age of its oldest unfinished item, and the Google purchases waiting to be acknowledged. They
/// are set at each scrape of `/metrics` (`VerifierWorker.refreshGauges`), so storage is read only
/// when someone looks, never per item.
final class WorkerGauges: Sendable {
  static let states: [SubmissionState] = [.pending, .processing, .verified, .rejected, .failed]
  /// Google's acknowledgement window (3 days): what the deadline gauge shows when none is pending.
  static let acknowledgementWindowMs: Int64 = 3 * 86_400_000

  private let inboxItems: [SubmissionState: Gauge]
  private let inboxOldestAge: Gauge
  private let acknowledgeDeadline: Gauge
  private let unacknowledged: Gauge
  private let unacknowledgedNearDeadline: Gauge

  init(factory: any MetricsFactory) {
    inboxItems = Dictionary(
      uniqueKeysWithValues: Self.states.map {
        ($0, Gauge(label: WorkerMetrics.inboxItems, dimensions: [("state", $0.rawValue)], factory: factory))
      })
    inboxOldestAge = Gauge(label: WorkerMetrics.inboxOldestAge, factory: factory)
    acknowledgeDeadline = Gauge(label: WorkerMetrics.acknowledgeDeadline, factory: factory)
    unacknowledged = Gauge(label: WorkerMetrics.unacknowledged, factory: factory)
    unacknowledgedNearDeadline = Gauge(label: WorkerMetrics.unacknowledgedNearDeadline, factory: factory)
    acknowledgeDeadline.record(Double(Self.acknowledgementWindowMs) / 1_000)
  }

  /// The inbox as storage counts it (`inboxCounts`, `oldestUnfinishedInboxItemAtMs`) at `nowMs`.
  func recordInbox(counts: [String: Int], oldestUnfinishedAtMs: Int64?, nowMs: Int64) {
    for (state, gauge) in inboxItems { gauge.record(counts[state.rawValue] ?? 0) }
    inboxOldestAge.record(Double(oldestUnfinishedAtMs.map { max(nowMs - $0, 0) } ?? 0) / 1_000)
  }

  /// The acknowledgements this worker waits on (`PendingAcknowledgements`) at `nowMs`.
  func recordAcknowledgements(_ pending: PendingAcknowledgements, nowMs: Int64) {
    let counts = pending.counts(nowMs: nowMs)
    unacknowledged.record(counts.pending)
    unacknowledgedNearDeadline.record(counts.urgent)
    let left = pending.nearestDeadlineMs().map { $0 - nowMs } ?? Self.acknowledgementWindowMs
    acknowledgeDeadline.record(Double(left) / 1_000)
  }
}
