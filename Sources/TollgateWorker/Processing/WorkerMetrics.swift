/// The worker's metric families: their names, and the HELP text and histogram buckets the
/// executable hands its Prometheus registry (`DescribedMetricsFactory` in TollgateMetrics). The
/// worker counts through swift-metrics, which carries neither; docs/metrics.md lists the same.
public enum WorkerMetrics {
  static let items = "tollgate_worker_items_total"
  static let storeFailures = "tollgate_store_failures_total"
  static let storeRetries = "tollgate_store_retries_total"
  static let storeCallDuration = "tollgate_store_call_duration_seconds"
  static let stageCPU = "tollgate_worker_stage_cpu_seconds"
  static let notificationsNotStored = "tollgate_notifications_not_stored_total"
  static let connectionsCut = "tollgate_http_connections_cut_total"
  static let inboxItems = "tollgate_inbox_items"
  static let inboxOldestAge = "tollgate_inbox_oldest_age_seconds"
  static let acknowledgeDeadline = "tollgate_google_acknowledge_deadline_seconds"
  static let unacknowledged = "tollgate_google_unacknowledged_purchases"
  static let unacknowledgedNearDeadline = "tollgate_google_unacknowledged_purchases_near_deadline"
  static let webhookFailures = "tollgate_webhook_failures_total"
  static let webhookBacklog = "tollgate_webhook_backlog"
  static let webhookOldestAge = "tollgate_webhook_oldest_undelivered_age_seconds"
  static let webhookParked = "tollgate_webhook_parked"
  static let webhookParkedTotal = "tollgate_webhook_parked_total"

  /// Each family's HELP text, by name.
  public static let help: [String: String] = [
    items:
      "Inbox items (submitted purchases, stored notifications) this worker finished, by outcome (verified, rejected).",
    storeFailures: "Store calls that failed or answered what cannot be believed (any kind but final), by store.",
    storeRetries:
      "Inbox items and scheduled checks put back for a retry after a store failure, by store and the failure's kind (transient, needs_operator, not_found, final).",
    storeCallDuration:
      "How long each call to a store's API took (its answer, not the wait for a permit), by store and call.",
    stageCPU:
      "CPU time of the worker's CPU-bound stages (verify: signature and certificate-chain checks of signed payloads and pushes), by stage.",
    notificationsNotStored:
      "Notification requests answered without being stored, by route and outcome (refused, acknowledged, too_large).",
    connectionsCut:
      "Connections an HTTP listener closed (over its cap, too slow), by listener (listen, adminListen) and reason.",
    inboxItems: "Inbox items by state (pending, processing, verified, rejected, failed), read at each scrape.",
    inboxOldestAge:
      "Age of the oldest inbox item not finished yet (pending or processing), 0 when there is none, read at each scrape.",
    acknowledgeDeadline:
      "Seconds left before the nearest acknowledgement deadline of a Google purchase this worker read and has not acknowledged (negative once past; 259200, Google's 3-day window, when none is pending).",
    unacknowledged: "Google purchases this worker read and has not acknowledged yet.",
    unacknowledgedNearDeadline:
      "Google purchases not acknowledged within a day of their deadline (or past it): Google refunds them at the deadline.",
    webhookFailures: "Webhook deliveries that failed (an error or a status other than 2xx).",
    webhookBacklog:
      "Events waiting to be delivered to an endpoint (after its cursor, and parked events queued for redelivery), by endpoint, read at each scrape.",
    webhookOldestAge:
      "Age of the oldest event an endpoint has not received, 0 when it has received all, by endpoint, read at each scrape.",
    webhookParked: "Events parked for an operator (tollgate webhooks redeliver), by endpoint, read at each scrape.",
    webhookParkedTotal: "Events this worker parked since it started, by endpoint.",
  ]

  /// Store calls take milliseconds to the HTTP client's timeout (tens of seconds).
  public static let durationBuckets: [String: [Duration]] = [
    storeCallDuration: [
      .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
      .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
      .seconds(30),
    ],
    // A signature check takes tens of microseconds, a long history's chains milliseconds.
    stageCPU: [
      .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
      .microseconds(2500), .milliseconds(10), .milliseconds(50),
    ],
  ]
}
