import Foundation
import Hummingbird
import NIOCore
import TollgateHTTPListener

/// The admin listener's probes and the gauges `/metrics` reads when it is scraped.
///
/// - `GET /livez`: 200 while the process runs and its admin listener answers.
/// - `GET /readyz`: 200 when the worker can do its job: its storage can be trusted (the database
///   file is the one it opened), it holds the worker lease (`worker.exclusive`) or shares the
///   database, and its loop reads the inbox; 503 otherwise. Both answer the same JSON:
///   `{"status": "ready" | "not_ready", "checks": {"storage": {"ready": …, "reason": …}, "lease": …,
///   "inbox": …}, "notReady": ["storage", …]}`.
extension VerifierWorker {
  func livez() -> Response {
    ProbeJSON.response(["status": "live"], status: .ok)
  }

  func readyz() async -> Response {
    var checks: [String: [String: Any]] = [:]
    var notReady: [String] = []
    func check(_ name: String, _ reason: String?, ok: String) {
      checks[name] = reason.map { ["ready": false, "reason": $0] } ?? ["ready": true, "reason": ok]
      if reason != nil { notReady.append(name) }
    }
    check("storage", await storage.storageProblem(), ok: "the database can be trusted")
    if settings.exclusive {
      check("lease", lease.notHeldReason(nowMs: nowMs()), ok: "this worker holds the worker lease")
    } else {
      check("lease", nil, ok: "shared: workers share the database (worker.exclusive is false)")
    }
    check("inbox", drain.notDrainingReason, ok: "the worker loop reads the inbox")
    let body: [String: Any] = [
      "status": notReady.isEmpty ? "ready" : "not_ready", "checks": checks, "notReady": notReady,
    ]
    return ProbeJSON.response(body, status: notReady.isEmpty ? .ok : .serviceUnavailable)
  }

  /// What `GET /metrics` serves: the gauges read afresh, then every family rendered; nil when
  /// the worker was built without metrics.
  public func scrapeMetrics() async -> String? {
    guard let render = metricsText else { return nil }
    await refreshGauges()
    return render()
  }

  /// Sets the gauges that show state read from storage (the inbox, each webhook endpoint's
  /// backlog) and the acknowledgements this worker waits on: called at each scrape, so nothing
  /// is read when nobody looks. What cannot be read keeps its last value (and `/readyz` says why).
  func refreshGauges() async {
    let now = nowMs()
    if let counts = try? await storage.inboxCounts() {
      let oldest = try? await storage.oldestUnfinishedInboxItemAtMs()
      stats.gauges.recordInbox(counts: counts, oldestUnfinishedAtMs: oldest, nowMs: now)
    }
    stats.gauges.recordAcknowledgements(acknowledgements, nowMs: now)
    for endpoint in webhooks.endpoints {
      guard let backlog = try? await storage.webhookBacklog(endpoint: endpoint.url, kinds: endpoint.events) else {
        continue
      }
      stats.webhooks.record(backlog, endpoint: endpoint.displayName, nowMs: now)
    }
  }
}
