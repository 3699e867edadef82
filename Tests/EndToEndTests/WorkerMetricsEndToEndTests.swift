import Foundation
import StoreSimulator
import Testing
import TollgateClient
import TollgateCore
import TollgateTesting

/// Issue 29: the worker's metrics and probes as an operator's Prometheus and load balancer meet
/// them, `tollgate worker` and `tollgate serve` as processes and the three stores simulated over
/// HTTP.
@Suite("The worker's metrics and probes, as processes", .serialized)
struct WorkerMetricsEndToEndTests {
  @Test(
    "a submission and a notification per store move the store-call histograms; retries, the inbox, Google's deadline and a refusing webhook endpoint show"
  )
  func metricsMove() async throws {
    let hooks = try await WebhookReceiver.start { _ in 503 }
    let stack: ThreeStoreProcesses
    do { stack = try await ThreeStoreProcesses.start(prefix: "tollgate-metrics", webhookURL: hooks.url) } catch {
      await hooks.stop()
      throw error
    }
    do {
      try await Self.exercise(stack, hooks: hooks)
    } catch {
      await stack.stop()
      await hooks.stop()
      throw error
    }
    await stack.stop()
    await hooks.stop()
  }

  static func exercise(_ stack: ThreeStoreProcesses, hooks: WebhookReceiver) async throws {
    let client = try stack.client()
    do {
      try await measure(stack, client: client, hooks: hooks)
    } catch {
      await client.close()
      throw error
    }
    await client.close()
  }

  static func measure(_ stack: ThreeStoreProcesses, client: TollgateClient, hooks: WebhookReceiver) async throws {
    let before = Scrape(try await stack.admin("/metrics").body)
    #expect(before.families.count > 10, "\(before.text)")
    #expect(before.value("tollgate_build_info", ["version": TollgateVersion.current]) == 1, "\(before.text)")

    // The App Store answers its first call with a 500: the item is retried (kind transient).
    try stack.sim.addFault(FaultRule(target: "apple.api", mode: .error500, count: 1))
    for (index, store) in [Tollgate_V1_Store.appStore, .googlePlay, .amazon].enumerated() {
      let request = try await stack.buy(store, user: "payer-\(index)")
      let answer = try await client.submitPurchase(request, timeout: .seconds(15))
      #expect(answer.status == .verified, "\(store): \(answer)")
    }
    // A Google purchase nobody submitted: its notification is read, and nobody owns it, so it
    // is not acknowledged (Google refunds it 3 days after the purchase).
    _ = try await stack.sim.googlePurchase(.init(productId: Stack.premium))

    // Three submissions and four purchase notifications (one each, the unclaimed one's too).
    var scrape = before
    let drained = try await eventually(timeout: .seconds(30)) {
      scrape = Scrape(try await stack.admin("/metrics").body)
      return scrape.value("tollgate_inbox_items", ["state": "pending"]) == 0
        && scrape.value("tollgate_inbox_items", ["state": "processing"]) == 0
        && (scrape.value("tollgate_inbox_items", ["state": "verified"]) ?? 0) >= 7
        && scrape.value("tollgate_google_unacknowledged_purchases", [:]) == 1
    }
    #expect(drained != nil, "\(scrape.text)\n\(stack.worker.log)")

    // An hour passes on the deployment's clock with the webhook endpoint refusing everything.
    _ = try await stack.sim.advance(byMs: 3_600_000)
    let endpoint = ["endpoint": hooks.url]
    // The worker follows the simulator's clock: it sees the jump at its next look.
    let aged = try await eventually(timeout: .seconds(10)) {
      scrape = Scrape(try await stack.admin("/metrics").body)
      return (scrape.value("tollgate_webhook_oldest_undelivered_age_seconds", endpoint) ?? 0) >= 3_600
    }
    #expect(aged != nil, "\(scrape.text)")
    #expect(scrape.undescribed.isEmpty, "families without HELP or TYPE: \(scrape.undescribed)")
    for (store, calls) in [
      ("app_store", ["getTransactionInfo"]), ("google_play", ["subscriptionsv2.get", "acknowledge"]),
      ("amazon", ["verifyReceiptId"]),
    ] {
      for call in calls {
        let count = scrape.value("tollgate_store_call_duration_seconds_count", ["store": store, "call": call]) ?? 0
        #expect(count >= 1, "\(store) \(call): \(scrape.text)")
        let sum = scrape.value("tollgate_store_call_duration_seconds_sum", ["store": store, "call": call]) ?? -1
        #expect(sum >= 0, "\(store) \(call)")
      }
    }
    #expect(
      (scrape.value("tollgate_store_retries_total", ["store": "app_store", "kind": "transient"]) ?? 0) >= 1,
      "\(scrape.text)")
    #expect(scrape.value("tollgate_store_retries_total", ["store": "amazon", "kind": "transient"]) == 0)
    #expect((scrape.value("tollgate_worker_items_total", ["outcome": "verified"]) ?? 0) >= 7)
    #expect(scrape.value("tollgate_inbox_oldest_age_seconds", [:]) == 0, "nothing is waiting")
    // The unclaimed purchase's deadline: 3 days after it was bought, an hour ago.
    let deadline = try #require(scrape.value("tollgate_google_acknowledge_deadline_seconds", [:]))
    #expect(deadline > 0 && deadline <= 3 * 86_400 - 3_600, "\(deadline)")
    #expect(scrape.value("tollgate_google_unacknowledged_purchases_near_deadline", [:]) == 0)
    #expect((scrape.value("tollgate_webhook_backlog", endpoint) ?? 0) >= 3, "\(scrape.text)")
    #expect((scrape.value("tollgate_webhook_failures_total", [:]) ?? 0) >= 1)

    // Two more days: the unacknowledged purchase is within a day of its deadline.
    _ = try await stack.sim.advance(byMs: 2 * 86_400_000)
    let urgent = try await eventually(timeout: .seconds(10)) {
      scrape = Scrape(try await stack.admin("/metrics").body)
      return scrape.value("tollgate_google_unacknowledged_purchases_near_deadline", [:]) == 1
    }
    #expect(urgent != nil, "\(scrape.text)")
    #expect((scrape.value("tollgate_google_acknowledge_deadline_seconds", [:]) ?? .infinity) < 86_400)
  }

  @Test(
    "/livez and /readyz: ready while storage, lease and inbox loop are fine; 503 naming storage once its file is gone")
  func probes() async throws {
    let workers = try await WorkerProcesses.make(prefix: "tollgate-probes")
    do {
      let (worker, _, adminPort) = try await workers.start()
      do {
        try await Self.probe(worker: worker, adminPort: adminPort, database: workers.database)
      } catch {
        worker.terminate()
        _ = worker.finish()
        throw error
      }
    } catch {
      await workers.remove()
      throw error
    }
    await workers.remove()
  }

  static func probe(worker: ChildProcess, adminPort: Int, database: String) async throws {

    let live = try await httpRequest("GET", port: adminPort, path: "/livez")
    #expect(live.status == 200, "\(live.body)")
    var ready = try await httpRequest("GET", port: adminPort, path: "/readyz")
    _ = await eventually(timeout: .seconds(10)) {
      ready = (try? await httpRequest("GET", port: adminPort, path: "/readyz")) ?? ready
      return ready.status == 200
    }
    #expect(ready.status == 200, "\(ready.body)")
    let object = try #require(try JSONSerialization.jsonObject(with: Data(ready.body.utf8)) as? [String: Any])
    #expect(object["status"] as? String == "ready")
    #expect((object["notReady"] as? [String]) == [])
    let checks = try #require(object["checks"] as? [String: [String: Any]])
    #expect(Set(checks.keys) == ["storage", "lease", "inbox"])
    #expect(checks.values.allSatisfy { $0["ready"] as? Bool == true }, "\(checks)")

    // The database file is deleted under the worker: what it writes there is lost.
    try FileManager.default.removeItem(atPath: database)
    var down = ready
    _ = await eventually(timeout: .seconds(10)) {
      down = (try? await httpRequest("GET", port: adminPort, path: "/readyz")) ?? down
      return down.status == 503
    }
    #expect(down.status == 503, "\(down.body)")
    let downObject = try #require(try JSONSerialization.jsonObject(with: Data(down.body.utf8)) as? [String: Any])
    #expect(downObject["status"] as? String == "not_ready")
    #expect((downObject["notReady"] as? [String] ?? []).contains("storage"), "\(down.body)")
    let storage = (downObject["checks"] as? [String: [String: Any]])?["storage"]
    #expect((storage?["reason"] as? String ?? "").isEmpty == false, "\(down.body)")
    // Alive all the same: a restart would not bring the file back.
    #expect(try await httpRequest("GET", port: adminPort, path: "/livez").status == 200)
    worker.terminate()
    _ = worker.finish()
  }
}

/// One scrape of a Prometheus text exposition (0.0.4): its samples, and which families lack a
/// HELP or TYPE line.
struct Scrape {
  let text: String
  private(set) var samples: [(name: String, labels: [String: String], value: Double)] = []
  private(set) var help: Set<String> = []
  private(set) var types: [String: String] = [:]

  init(_ text: String) {
    self.text = text
    for line in text.split(separator: "\n") {
      if line.hasPrefix("# HELP ") {
        help.insert(String(line.dropFirst(7).prefix { $0 != " " }))
      } else if line.hasPrefix("# TYPE ") {
        let words = line.dropFirst(7).split(separator: " ")
        if words.count == 2 { types[String(words[0])] = String(words[1]) }
      } else if !line.hasPrefix("#"), let space = line.lastIndex(of: " "),
        let value = Double(line[line.index(after: space)...])
      {
        let series = line[..<space]
        let name = String(series.prefix { $0 != "{" })
        var labels: [String: String] = [:]
        if let open = series.firstIndex(of: "{") {
          let inner = series[series.index(after: open)..<(series.lastIndex(of: "}") ?? series.endIndex)]
          for pair in inner.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { labels[String(parts[0])] = String(parts[1].dropFirst().dropLast()) }
          }
        }
        samples.append((name, labels, value))
      }
    }
  }

  /// Every family named by a sample (histograms by their base name).
  var families: Set<String> {
    Set(
      samples.map { sample in
        for suffix in ["_bucket", "_sum", "_count"] where sample.name.hasSuffix(suffix) {
          let base = String(sample.name.dropLast(suffix.count))
          if types[base] == "histogram" { return base }
        }
        return sample.name
      })
  }

  /// Families with samples but no HELP or no TYPE line.
  var undescribed: [String] { families.filter { !help.contains($0) || types[$0] == nil }.sorted() }

  /// The value of the series `name` whose labels include `labels`; nil when none.
  func value(_ name: String, _ labels: [String: String]) -> Double? {
    samples.first { sample in sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value } }?.value
  }
}
