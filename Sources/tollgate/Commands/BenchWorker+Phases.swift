import Foundation
import StoreSimulator
import TollgateClient
import TollgateContract

/// One measured phase of `tollgate bench worker` at one store: notifications (the simulator posts
/// one per purchase to the worker) or submissions (SubmitPurchase through serve).
struct WorkerPhase: Encodable, Sendable {
  var store: String
  /// `notifications`, `notifications with hanging calls` or `submissions`.
  var kind: String
  var count: Int
  /// Notifications: acknowledged by the worker (the simulator's posts answered) per second.
  var acknowledgedPerSecond: Double?
  /// Verified and applied per second, to the last one.
  var appliedPerSecond: Double
  /// Verified and applied per second until 80% of them were.
  var appliedPerSecondTo80: Double?
  /// With hanging calls: the other chains' rate, until as many items were applied as the count
  /// less the calls that hung so far (each hung call holds at most one chain back), and how many
  /// calls hung by then (the head-of-line figure, beside the healthy `appliedPerSecond`).
  var othersPerSecond: Double?
  var hungCalls: Int?
  var lastAppliedMs: Int64
  /// Items the worker rejected, or that were not applied within the timeout.
  var rejected: Int
  var notApplied: Int
  /// CPU seconds spent meanwhile by each process (and the bench itself).
  var cpuSeconds: [String: Double]
  /// CPU seconds of the worker's threads, by thread name.
  var workerThreadSeconds: [String: Double]
  /// The worker's own accounting: CPU seconds by stage (`tollgate_worker_stage_cpu_seconds`) and
  /// the store calls' time (`tollgate_store_call_duration_seconds`, wall time summed).
  var stageSeconds: [String: Double]
}

/// Runs the phases against the running simulator, worker and serve.
struct WorkerPhases: Sendable {
  var buyer: WorkersPurchaser
  var control: StoreSimulatorControlClient
  var probe: WorkerMetricsProbe
  var pids: [String: Int32]
  var inFlight: Int
  var timeout: Duration

  struct Failed: Error, CustomStringConvertible {
    var description: String
  }

  /// The simulator's name for `store`'s API, in its fault rules.
  static func apiTarget(_ store: Tollgate_V1_Store) -> String {
    switch store {
    case .googlePlay: "google.api"
    case .amazon: "amazon.rvs"
    default: "apple.api"
    }
  }

  static func notificationsTarget(_ store: Tollgate_V1_Store) -> String {
    switch store {
    case .googlePlay: "google.notifications"
    case .amazon: "amazon.notifications"
    default: "apple.notifications"
    }
  }

  static func name(_ store: Tollgate_V1_Store) -> String {
    switch store {
    case .googlePlay: "google_play"
    case .amazon: "amazon"
    default: "app_store"
    }
  }

  /// `count` purchases at `store`, each notified to the worker by the simulator as it is made
  /// (`inFlight` purchases at once); timed until the worker has finished as many more items.
  /// With `hangFraction`, that share of the store's API calls hang until the worker gives up.
  func notifications(_ count: Int, at store: Tollgate_V1_Store, userPrefix: String, hangFraction: Double?)
    async throws -> WorkerPhase
  {
    if let hangFraction {
      try await fault(
        ["target": Self.apiTarget(store), "mode": "stall", "fraction": hangFraction, "delayMs": 120_000])
    }
    let before = try await probe.scrape()
    let cpu = CPUSample.take(pids, worker: pids["worker"])
    let clock = ContinuousClock()
    let started = clock.now
    // The purchases run beside the polling: the simulator posts each one's notification before
    // the purchase call returns, so the last purchase's return is the last acknowledgement.
    async let bought: Duration = {
      _ = try await buyer.buy(count, userPrefix: userPrefix, concurrency: inFlight, at: store)
      return clock.now - started
    }()
    // With hanging calls: once 80% are applied, the store stops hanging, so the chains whose calls
    // hung are verified when the worker tries them again.
    var others: (Duration, Int)?
    // The simulator's log of hung calls is read a few times a second, once half are applied: it
    // costs the simulator and the bench CPU the worker would otherwise have.
    var lookedAt = started
    let (applied, to80, last) = try await waitForFinished(count, after: before, started: started) { finished in
      guard hangFraction != nil, others == nil, finished >= count / 2, clock.now - lookedAt >= .milliseconds(200)
      else { return }
      lookedAt = clock.now
      let hung = try await stalls()
      if hung > 0, finished >= count - hung {
        others = (clock.now - started, hung)
        try await clearFaults()
      }
    }
    let acknowledgedAt = try await bought
    let after = try await probe.scrape()
    let spent = CPUSample.take(pids, worker: pids["worker"]).since(cpu)
    if hangFraction != nil { try await clearFaults() }
    let rejected = Int(after.rejected - before.rejected)
    return WorkerPhase(
      store: Self.name(store), kind: hangFraction == nil ? "notifications" : "notifications with hanging calls",
      count: count,
      acknowledgedPerSecond: Double(count) / max(acknowledgedAt / .seconds(1), 1e-9),
      appliedPerSecond: Double(applied) / max(last / .seconds(1), 1e-9),
      appliedPerSecondTo80: to80.map { Double(count * 4 / 5) / max($0 / .seconds(1), 1e-9) },
      othersPerSecond: others.map { Double(count - $0.1) / max($0.0 / .seconds(1), 1e-9) }, hungCalls: others?.1,
      lastAppliedMs: Self.milliseconds(last), rejected: rejected, notApplied: count - applied,
      cpuSeconds: spent.processes, workerThreadSeconds: spent.workerThreads,
      stageSeconds: Self.stages(after, since: before, store: store))
  }

  /// `count` purchases at `store` that the simulator does not notify, submitted through serve
  /// and timed until serve answers every user entitled (`WorkersMeasurement`, as `bench workers`).
  func submissions(_ count: Int, at store: Tollgate_V1_Store, userPrefix: String, client: TollgateClient)
    async throws -> WorkerPhase
  {
    try await fault(["target": Self.notificationsTarget(store), "mode": "drop", "count": count])
    let requests = try await buyer.buy(count, userPrefix: userPrefix, concurrency: inFlight, at: store)
    try await clearFaults()
    let before = try await probe.scrape()
    let cpu = CPUSample.take(pids, worker: pids["worker"])
    let measured = try await WorkersMeasurement.measure(
      requests, client: client, entitlement: "premium", inFlight: inFlight, pollBatch: 64, timeout: timeout)
    let after = try await probe.scrape()
    let spent = CPUSample.take(pids, worker: pids["worker"]).since(cpu)
    return WorkerPhase(
      store: Self.name(store), kind: "submissions", count: count, acknowledgedPerSecond: nil,
      appliedPerSecond: measured.verificationsPerSecond, appliedPerSecondTo80: nil,
      lastAppliedMs: measured.lastEntitledMs, rejected: Int(after.rejected - before.rejected),
      notApplied: measured.notEntitled + measured.notAcknowledged, cpuSeconds: spent.processes,
      workerThreadSeconds: spent.workerThreads, stageSeconds: Self.stages(after, since: before, store: store))
  }

  /// Polls the worker's metrics until `count` more items are finished than in `before` (or the
  /// timeout): how many were, when 80% were, and when the last one was.
  private func waitForFinished(
    _ count: Int, after before: WorkerMetricsProbe.Scrape, started: ContinuousClock.Instant,
    each: (_ finished: Int) async throws -> Void
  ) async throws -> (finished: Int, to80: Duration?, last: Duration) {
    let deadline = started + timeout
    var finished = 0
    var to80: Duration?
    while finished < count, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(20))
      finished = Int(try await probe.scrape().finished - before.finished)
      if to80 == nil, finished >= count * 4 / 5 { to80 = ContinuousClock.now - started }
      try await each(finished)
    }
    return (min(finished, count), to80, ContinuousClock.now - started)
  }

  /// The worker's stage accounting between two scrapes, in seconds: each stage's CPU, and the
  /// wall time of `store`'s API calls.
  static func stages(
    _ after: WorkerMetricsProbe.Scrape, since before: WorkerMetricsProbe.Scrape, store: Tollgate_V1_Store
  )
    -> [String: Double]
  {
    let family = "tollgate_worker_stage_cpu_seconds_sum"
    let now = after.sums(family, by: "stage")
    let then = before.sums(family, by: "stage")
    var stages = Dictionary(uniqueKeysWithValues: now.map { ($0.key + " (CPU)", $0.value - (then[$0.key] ?? 0)) })
    let calls = "tollgate_store_call_duration_seconds_sum"
    let matching = "store=\"\(name(store))\""
    let callsNow = after.sums(calls, by: "store", matching: matching).values.reduce(0, +)
    let callsThen = before.sums(calls, by: "store", matching: matching).values.reduce(0, +)
    stages["store calls (wall)"] = callsNow - callsThen
    return stages
  }

  private func fault(_ rule: [String: any Sendable]) async throws {
    let answer = try await control.send("POST", "/sim/faults", json: rule)
    guard answer.isSuccess else {
      throw Failed(description: "POST /sim/faults answered \(answer.status): \(answer.body)")
    }
  }

  /// How many store calls the simulator has made hang (`GET /sim/faults/applied`).
  private func stalls() async throws -> Int {
    let answer = try await control.send("GET", "/sim/faults/applied")
    guard answer.isSuccess else { throw Failed(description: "GET /sim/faults/applied answered \(answer.status)") }
    let applied = try JSONDecoder().decode([AppliedFault].self, from: Data(answer.body.utf8))
    return applied.filter { $0.mode == .stall }.count
  }

  func clearFaults() async throws {
    let answer = try await control.send("DELETE", "/sim/faults")
    guard answer.isSuccess else { throw Failed(description: "DELETE /sim/faults answered \(answer.status)") }
  }

  /// Subscribes the worker's Amazon route at the simulator (SNS confirms it while this waits).
  func subscribeAmazon(_ url: String, app: String) async throws {
    let answer = try await control.send(
      "POST", "/sim/amazon/notification-url", json: ["url": url, "appPackageName": app])
    guard answer.isSuccess, answer.body.contains("confirmed") else {
      throw Failed(description: "the Amazon SNS subscription to \(url) was not confirmed: \(answer.body.prefix(300))")
    }
  }

  static func milliseconds(_ duration: Duration) -> Int64 {
    duration.components.seconds * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000
  }
}
