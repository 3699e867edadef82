import ArgumentParser
import Foundation
import StoreSimulator
import TollgateClient
import TollgateContract

extension Bench {
  struct Worker: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Notifications and submissions per second one running worker verifies and applies, per store.",
      discussion: """
        Against a running `tollgate storesim` (whose Apple and Google notifications go to the worker's \
        public listener), one `tollgate worker` and one `tollgate serve` on the same database. For each \
        store in turn: buys --notifications subscriptions (--in-flight at once), each of which the \
        simulator notifies to the worker before the purchase call returns, and times acknowledged/s \
        (the last purchase returned) and verified-and-applied/s (the worker's \
        tollgate_worker_items_total grew by as many); then buys --submissions more with their \
        notifications dropped, submits them through serve and times until serve answers every user \
        entitled (as `bench workers`). Each phase reports the CPU seconds of the processes given with \
        --pid, the worker's threads, and the worker's stage accounting (signature and chain checks, \
        recompute, SQLite; store calls' time). With --hang-fraction, a second notification phase per \
        store makes that share of the store's API calls hang until the worker gives up, and compares \
        the rate to 80% applied with the healthy one. Subscribes the worker's Amazon route first \
        (--amazon-notifications). Exits 1 when an item was rejected or not applied within --timeout-ms, \
        2 on bad usage or when a process cannot be reached.
        """)

    @Option(help: "The store simulator's control API, HOST:PORT.")
    var sim = HostPort(host: "127.0.0.1", port: 7702)

    @Option(help: "The service, HOST:PORT.")
    var server = HostPort(host: "127.0.0.1", port: 7701)

    @Option(help: "The worker's admin listener (its /metrics), HOST:PORT.")
    var workerAdmin: HostPort

    @Option(
      help: "The worker's Amazon notification URL, subscribed at the simulator first (none: Amazon not notified).")
    var amazonNotifications: String?

    @Option(help: "Notifications per store.")
    var notifications = 1_500

    @Option(help: "Submissions per store.")
    var submissions = 500

    @Option(help: "Stores, in order: any of app_store, google_play, amazon, comma-separated.")
    var stores = "app_store,google_play,amazon"

    @Option(help: "Purchases (and so notifications), and submissions, in flight at once.")
    var inFlight = 32

    @Option(help: "Also measure with this share of each store's API calls hanging (0.05: one in twenty).")
    var hangFraction: Double?

    @Option(
      help: "NAME=PID of a process to charge CPU to (worker, serve, storesim); repeat it. worker=PID adds its threads.")
    var pid: [String] = []

    @Option(help: "Give up on a phase this many milliseconds after it started.")
    var timeoutMs = 300_000

    @Flag(help: "Print the result as JSON.")
    var json = false

    func validate() throws {
      guard notifications >= 0, submissions >= 0, inFlight >= 1 else {
        throw ValidationError("--notifications and --submissions must not be negative, --in-flight at least 1")
      }
      if let hangFraction, !(hangFraction > 0 && hangFraction <= 1) {
        throw ValidationError("--hang-fraction must be greater than 0 and at most 1")
      }
      guard !storeList.isEmpty, storeList.count == stores.split(separator: ",").count else {
        throw ValidationError("--stores takes app_store, google_play and amazon, comma-separated")
      }
      guard pids.count == pid.count else { throw ValidationError("--pid takes NAME=PID") }
      guard timeoutMs >= 1 else { throw ValidationError("--timeout-ms must be at least 1") }
    }

    var storeList: [Tollgate_V1_Store] {
      stores.split(separator: ",").compactMap { name in
        Self.storeNames.first { $0.name == name.trimmingCharacters(in: .whitespaces) }?.store
      }
    }

    static let storeNames: [(name: String, store: Tollgate_V1_Store)] = [
      ("app_store", .appStore), ("google_play", .googlePlay), ("amazon", .amazon),
    ]

    var pids: [String: Int32] {
      Dictionary(
        pid.compactMap { entry -> (String, Int32)? in
          let parts = entry.split(separator: "=", maxSplits: 1)
          guard parts.count == 2, let value = Int32(parts[1]) else { return nil }
          return (String(parts[0]), value)
        }
      ) { a, _ in a }
    }

    func run() async throws {
      let control = StoreSimulatorControlClient(baseURL: "http://\(sim)", httpClient: .shared)
      let buyer = WorkersPurchaser(
        control: control, product: "com.example.premium.monthly", bundleId: "com.example.app",
        packageName: "com.example.android", amazonApp: "com.example.amazon")
      let phases = WorkerPhases(
        buyer: buyer, control: control, probe: WorkerMetricsProbe(baseURL: "http://\(workerAdmin)"), pids: pids,
        inFlight: inFlight, timeout: .milliseconds(timeoutMs))
      let client = try TollgateClient(endpoints: [.tcp(host: server.host, port: server.port)])
      var results: [WorkerPhase] = []
      do {
        try await buyer.checkReachable()
        _ = try await phases.probe.scrape()
        try await phases.clearFaults()
        if let amazonNotifications { try await phases.subscribeAmazon(amazonNotifications, app: buyer.amazonApp) }
        let prefix = "worker-\(getpid())-\(Int64(Date().timeIntervalSince1970 * 1_000))-"
        for store in storeList {
          let name = WorkerPhases.name(store)
          if notifications > 0 {
            results.append(
              try await phases.notifications(
                notifications, at: store, userPrefix: "\(prefix)\(name)-n-", hangFraction: nil))
            if let hangFraction {
              results.append(
                try await phases.notifications(
                  notifications, at: store, userPrefix: "\(prefix)\(name)-h-", hangFraction: hangFraction))
            }
          }
          if submissions > 0 {
            results.append(
              try await phases.submissions(
                submissions, at: store, userPrefix: "\(prefix)\(name)-s-", client: client))
          }
        }
      } catch {
        await client.close()
        FileHandle.standardError.write(Data("tollgate bench worker: \(error)\n".utf8))
        throw ExitCode(2)
      }
      await client.close()
      report(results)
      if results.contains(where: { $0.rejected > 0 || $0.notApplied > 0 }) { throw ExitCode(1) }
    }

    private func report(_ results: [WorkerPhase]) {
      if json {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        if let data = try? encoder.encode(results) { print(String(decoding: data, as: UTF8.self)) }
        return
      }
      for phase in results {
        var line = "\(phase.store) \(phase.kind): \(phase.count), \(Int(phase.appliedPerSecond.rounded())) applied/s"
        if let acknowledged = phase.acknowledgedPerSecond { line += " (\(Int(acknowledged.rounded())) acknowledged/s)" }
        if let to80 = phase.appliedPerSecondTo80 { line += ", \(Int(to80.rounded()))/s to 80%" }
        if let others = phase.othersPerSecond, let hung = phase.hungCalls {
          line += ", the other chains \(Int(others.rounded()))/s (\(hung) calls hung)"
        }
        line += "; last after \(phase.lastAppliedMs) ms"
        if phase.rejected > 0 { line += "; \(phase.rejected) rejected" }
        if phase.notApplied > 0 { line += "; \(phase.notApplied) not applied" }
        print(line)
        print("  CPU s: " + Self.seconds(phase.cpuSeconds))
        print("  worker threads CPU s: " + Self.seconds(Self.labelled(phase.workerThreadSeconds)))
        print("  worker stages s: " + Self.seconds(phase.stageSeconds))
      }
    }

    /// What the worker's threads do, by the name Linux gives them (15 characters at most).
    static let threadRoles: [(name: String, role: String)] = [
      ("SGLTN-TP-#", "blocking pool: signature checks"),
      ("NIO-SGLTN--#", "NIO event loops: HTTP"),
      ("oot.default-qos", "Swift concurrency"),
      ("-qos.overcommit", "dispatch queues: SQLite"),
    ]

    static func labelled(_ threads: [String: Double]) -> [String: Double] {
      Dictionary(
        threads.map { name, seconds in (threadRoles.first { $0.name == name }?.role ?? name, seconds) }
      ) { a, b in a + b }
    }

    static func seconds(_ values: [String: Double]) -> String {
      values.sorted { $0.value > $1.value }.map { "\($0.key) \(String(format: "%.2f", $0.value))" }
        .joined(separator: ", ")
    }
  }
}
