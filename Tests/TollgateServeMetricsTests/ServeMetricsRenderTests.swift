import Foundation
import Testing
import TollgateContract
import TollgateServeMetrics
import TollgateServer

/// serve's `/metrics` text (issue 29): every family with HELP and TYPE, Prometheus names, the
/// doors' calls by method and outcome, cumulative histogram buckets resolving microseconds.
@Suite("serve's metrics as Prometheus text")
struct ServeMetricsRenderTests {
  static func snapshot() -> ServeMetricsSnapshot {
    let fast = CallCounters()
    let isSubscriber = Int(EntitlementsMethod.isSubscriber.rawValue)
    fast.record(method: isSubscriber, outcome: .ok, count: 16, nanoseconds: 3_000)
    fast.record(method: isSubscriber, outcome: .ok, count: 4, nanoseconds: 40_000)
    fast.record(method: Int(EntitlementsMethod.authenticate.rawValue), outcome: .unauthenticated, nanoseconds: 9_000)
    let http = DoorCallRecorder(door: .http)
    http.record(.submitPurchase, outcome: .resourceExhausted, since: DoorCallRecorder.now())
    http.refusedConnection(reason: "over_capacity")
    return ServeMetricsSnapshot(
      doors: [
        .init(
          door: .fast, counted: DoorSnapshot(calls: fast.snapshot(), refusedConnections: ["evicted_unproven": 2]),
          openConnections: 7),
        .init(door: .http, counted: http.snapshot(), openConnections: 1),
      ], indexUsers: 3, indexRecords: 5, feedApplied: 42, feedHead: 44, feedLagSeconds: 0.25)
  }

  @Test("every family has HELP and TYPE before its samples, and every sample belongs to a described family")
  func described() {
    let text = Self.snapshot().render()
    var described: [String: String] = [:]
    for line in text.split(separator: "\n") {
      let words = line.split(separator: " ", maxSplits: 3).map(String.init)
      if words.first == "#" {
        #expect(words[1] == "HELP" || words[1] == "TYPE", "\(line)")
        if words[1] == "TYPE" { described[words[2]] = words[3] }
        if words[1] == "HELP" { #expect(words.count == 4 && !words[3].isEmpty, "\(line)") }
        continue
      }
      let name = String(line.prefix { $0 != "{" && $0 != " " })
      let family = ["_bucket", "_sum", "_count"].reduce(name) { family, suffix in
        described[family] == nil && family.hasSuffix(suffix) ? String(family.dropLast(suffix.count)) : family
      }
      #expect(described[family] != nil, "\(name) has no TYPE line before it")
    }
    for family in ServeMetricsSnapshot.families { #expect(described[family.name] == family.type, "\(family.name)") }
    #expect(described["tollgate_build_info"] == "gauge")
    for (name, type) in described where type == "counter" { #expect(name.hasSuffix("_total"), "\(name)") }
  }

  @Test("calls by door, method and outcome; the histogram's buckets are cumulative, with sum and count")
  func samples() {
    let lines = Set(Self.snapshot().render().split(separator: "\n").map(String.init))
    for expected in [
      #"tollgate_requests_total{door="fast",method="IsSubscriber",outcome="ok"} 20"#,
      #"tollgate_requests_total{door="fast",method="Authenticate",outcome="unauthenticated"} 1"#,
      #"tollgate_requests_total{door="http",method="SubmitPurchase",outcome="resource_exhausted"} 1"#,
      #"tollgate_request_duration_seconds_bucket{door="fast",method="IsSubscriber",le="2.5e-06"} 0"#,
      #"tollgate_request_duration_seconds_bucket{door="fast",method="IsSubscriber",le="5e-06"} 16"#,
      #"tollgate_request_duration_seconds_bucket{door="fast",method="IsSubscriber",le="2.5e-05"} 16"#,
      #"tollgate_request_duration_seconds_bucket{door="fast",method="IsSubscriber",le="5e-05"} 20"#,
      #"tollgate_request_duration_seconds_bucket{door="fast",method="IsSubscriber",le="+Inf"} 20"#,
      #"tollgate_request_duration_seconds_count{door="fast",method="IsSubscriber"} 20"#,
      #"tollgate_request_duration_seconds_sum{door="fast",method="IsSubscriber"} 0.000208"#,
      "tollgate_index_users 3", "tollgate_index_records 5", "tollgate_change_feed_position 42",
      "tollgate_change_feed_head_position 44", "tollgate_change_feed_lag_seconds 0.25",
      #"tollgate_connections_open{door="fast"} 7"#, #"tollgate_connections_open{door="http"} 1"#,
      #"tollgate_connections_refused_total{door="fast",reason="evicted_unproven"} 2"#,
      #"tollgate_connections_refused_total{door="http",reason="over_capacity"} 1"#,
      #"tollgate_authentication_failures_total{door="fast"} 1"#,
      #"tollgate_authentication_failures_total{door="http"} 0"#,
      #"tollgate_submissions_limited_total{door="http"} 1"#,
      #"tollgate_submissions_limited_total{door="fast"} 0"#,
    ] {
      #expect(lines.contains(expected), "missing: \(expected)")
    }
    #expect(lines.contains { $0.hasPrefix(#"tollgate_build_info{version=""#) && $0.hasSuffix(" 1") })
    // Methods nobody called have no histogram.
    #expect(!lines.contains { $0.contains(#"method="GetSubscription""#) })
  }

  @Test("label values are escaped")
  func escaped() {
    let http = DoorCallRecorder(door: .http)
    http.refusedConnection(reason: "a \"quoted\\\" reason\n")
    let text = ServeMetricsSnapshot(
      doors: [.init(door: .http, counted: http.snapshot(), openConnections: 0)], indexUsers: 0, indexRecords: 0,
      feedApplied: 0, feedHead: 0, feedLagSeconds: 0
    ).render()
    #expect(text.contains(#"reason="a \"quoted\\\" reason\n"} 1"#), "\(text)")
  }
}

@Suite("serve's /readyz")
struct ServeReadinessTests {
  @Test("ready only when the index is loaded, the feed fresh and the storage trusted; the body names what is not")
  func checks() throws {
    let ready = ServeReadiness(
      indexNotLoaded: nil, storageProblem: nil, reloading: nil, feedLagMs: 10, staleAfterMs: 5_000)
    #expect(ready.isReady)
    #expect(try Self.object(ready.json)["status"] as? String == "ready")

    let cases: [(ServeReadiness, [String])] = [
      (
        .init(indexNotLoaded: "not yet", storageProblem: nil, reloading: nil, feedLagMs: 0, staleAfterMs: 5_000),
        ["index"]
      ),
      (
        .init(indexNotLoaded: nil, storageProblem: nil, reloading: nil, feedLagMs: 6_000, staleAfterMs: 5_000),
        ["changeFeed"]
      ),
      (
        .init(indexNotLoaded: nil, storageProblem: nil, reloading: "restored", feedLagMs: 0, staleAfterMs: 5_000),
        ["changeFeed"]
      ),
      (
        .init(indexNotLoaded: nil, storageProblem: "replaced", reloading: nil, feedLagMs: 0, staleAfterMs: 5_000),
        ["storage"]
      ),
      (
        .init(indexNotLoaded: "down", storageProblem: "replaced", reloading: nil, feedLagMs: 0, staleAfterMs: 5_000),
        ["index", "storage"]
      ),
    ]
    for (readiness, notReady) in cases {
      #expect(!readiness.isReady)
      let body = try Self.object(readiness.json)
      #expect(body["status"] as? String == "not_ready")
      #expect(body["notReady"] as? [String] == notReady)
      let checks = try #require(body["checks"] as? [String: [String: Any]])
      for name in notReady {
        #expect(checks[name]?["ready"] as? Bool == false)
        #expect((checks[name]?["reason"] as? String)?.isEmpty == false)
      }
      #expect(checks.count == 3)
    }
  }

  static func object(_ json: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
  }
}
