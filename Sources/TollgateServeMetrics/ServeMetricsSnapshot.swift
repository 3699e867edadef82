import TollgateMetrics
import TollgateServer

/// Everything `/metrics` shows, read at one scrape: per door its calls, refused connections and
/// open connections, and the index and change feed. `render()` writes it as Prometheus text.
public struct ServeMetricsSnapshot: Sendable {
  public struct Door: Sendable {
    public var door: ServeDoor
    public var counted: DoorSnapshot
    public var openConnections: Int

    public init(door: ServeDoor, counted: DoorSnapshot, openConnections: Int) {
      self.door = door
      self.counted = counted
      self.openConnections = openConnections
    }
  }

  public var doors: [Door]
  public var indexUsers: Int
  public var indexRecords: Int
  /// The last change-feed sequence applied to the index, and the newest seen in storage.
  public var feedApplied: Int64
  public var feedHead: Int64
  /// Since the index was last known to be up to date (0 before the first read of the feed).
  public var feedLagSeconds: Double

  public init(
    doors: [Door], indexUsers: Int, indexRecords: Int, feedApplied: Int64, feedHead: Int64, feedLagSeconds: Double
  ) {
    self.doors = doors
    self.indexUsers = indexUsers
    self.indexRecords = indexRecords
    self.feedApplied = feedApplied
    self.feedHead = feedHead
    self.feedLagSeconds = feedLagSeconds
  }

  /// The families, their HELP text and type, in the order `render()` writes them (docs/metrics.md
  /// lists the same).
  public static let families: [(name: String, type: String, help: String)] = [
    ("tollgate_requests_total", "counter", "Calls answered, by door, method and outcome (ok or the error code)."),
    (
      "tollgate_request_duration_seconds", "histogram",
      "Time from reading a call to sending its answer, by door and method."
    ),
    ("tollgate_index_users", "gauge", "Users in the in-memory entitlement index."),
    ("tollgate_index_records", "gauge", "Entitlement records in the in-memory index."),
    ("tollgate_change_feed_position", "gauge", "The last change-feed sequence applied to the index."),
    ("tollgate_change_feed_head_position", "gauge", "The newest change-feed sequence seen in storage."),
    (
      "tollgate_change_feed_lag_seconds", "gauge",
      "Seconds since the index was last known to be up to date with the change feed."
    ),
    ("tollgate_connections_open", "gauge", "Connections open, by door."),
    (
      "tollgate_connections_refused_total", "counter",
      "Connections refused or closed by a limit, by door and reason."
    ),
    (
      "tollgate_authentication_failures_total", "counter",
      "Calls refused as unauthenticated and failed Authenticate calls, by door."
    ),
    (
      "tollgate_submissions_limited_total", "counter",
      "SubmitPurchase calls refused by a limit (RESOURCE_EXHAUSTED), by door."
    ),
  ]

  /// `families` by name: each one's type and HELP text.
  private static let described: [String: (type: String, help: String)] = Dictionary(
    uniqueKeysWithValues: families.map { ($0.name, ($0.type, $0.help)) })

  /// Prometheus text (0.0.4): every family with HELP and TYPE, then `tollgate_build_info`.
  public func render() -> String {
    var out = PrometheusText()
    func begin(_ name: String) {
      let (type, text) = Self.described[name]!
      out.family(name, type, help: text)
    }

    begin("tollgate_requests_total")
    for door in doors {
      for method in 0..<CallCounters.methodCount {
        for outcome in CallOutcome.allCases {
          let count = door.counted.calls.calls(method: method, outcome: outcome)
          guard count > 0 else { continue }
          out.sample(
            "tollgate_requests_total",
            [
              ("door", door.door.rawValue), ("method", CallSnapshot.methodName(method)), ("outcome", outcome.label),
            ], count)
        }
      }
    }
    begin("tollgate_request_duration_seconds")
    for door in doors {
      for method in 0..<CallCounters.methodCount {
        let count = door.counted.calls.calls(method: method)
        guard count > 0 else { continue }
        let labels = [("door", door.door.rawValue), ("method", CallSnapshot.methodName(method))]
        var cumulative: UInt64 = 0
        for (bucket, calls) in door.counted.calls.buckets(method: method).enumerated() {
          cumulative += calls
          let bound =
            bucket < CallCounters.bucketBoundsNs.count
            ? PrometheusText.number(Double(CallCounters.bucketBoundsNs[bucket]) / 1e9) : "+Inf"
          out.sample("tollgate_request_duration_seconds_bucket", labels + [("le", bound)], cumulative)
        }
        out.sample(
          "tollgate_request_duration_seconds_sum", labels,
          seconds: Double(door.counted.calls.sumNanoseconds(method: method)) / 1e9)
        out.sample("tollgate_request_duration_seconds_count", labels, count)
      }
    }
    begin("tollgate_index_users")
    out.sample("tollgate_index_users", [], Int64(indexUsers))
    begin("tollgate_index_records")
    out.sample("tollgate_index_records", [], Int64(indexRecords))
    begin("tollgate_change_feed_position")
    out.sample("tollgate_change_feed_position", [], feedApplied)
    begin("tollgate_change_feed_head_position")
    out.sample("tollgate_change_feed_head_position", [], feedHead)
    begin("tollgate_change_feed_lag_seconds")
    out.sample("tollgate_change_feed_lag_seconds", [], seconds: feedLagSeconds)
    begin("tollgate_connections_open")
    for door in doors {
      out.sample("tollgate_connections_open", [("door", door.door.rawValue)], Int64(door.openConnections))
    }
    begin("tollgate_connections_refused_total")
    for door in doors {
      for (reason, count) in door.counted.refusedConnections.sorted(by: { $0.key < $1.key }) {
        out.sample("tollgate_connections_refused_total", [("door", door.door.rawValue), ("reason", reason)], count)
      }
    }
    begin("tollgate_authentication_failures_total")
    for door in doors {
      out.sample(
        "tollgate_authentication_failures_total", [("door", door.door.rawValue)],
        door.counted.calls.authenticationFailures)
    }
    begin("tollgate_submissions_limited_total")
    for door in doors {
      out.sample(
        "tollgate_submissions_limited_total", [("door", door.door.rawValue)], door.counted.calls.submissionsLimited)
    }
    out.family(BuildInfo.name, "gauge", help: BuildInfo.help)
    out.sample(BuildInfo.name, BuildInfo.labels, "1")
    return out.text
  }
}
