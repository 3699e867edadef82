import ArgumentParser
import Foundation
import Logging
import TollgateBench
import TollgateClient
import TollgateCore
import TollgateService
import TollgateStorage
import TollgateStorageFactory

extension Bench {
  struct Visibility: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "How long a write by another process takes to reach IsSubscriber answers.",
      discussion: """
        Writes an entitlement for a fresh user into the database (as the worker would: one transaction \
        with its change-feed entry), then asks the service until it answers active; repeats --samples \
        times and prints percentiles of the delay from commit to the first active answer. Run it beside \
        `tollgate bench` to measure visibility under load. The probe users are removed at the end. \
        Given --server more than once (replicas of one database), a write counts as visible when every \
        replica answers it active.
        """)

    @Option(help: "The service, HOST:PORT; repeat it for each replica (default 127.0.0.1:7701).")
    var server: [HostPort] = []

    var servers: [HostPort] { server.isEmpty ? [HostPort(host: "127.0.0.1", port: 7701)] : server }

    @Option(
      help:
        "The service's database: an SQLite file path (or sqlite:PATH), or postgres://USER@HOST:PORT/DATABASE?sslmode=MODE with the password in TOLLGATE_DATABASE_PASSWORD(_FILE)."
    )
    var database: String

    @Option(help: "How many writes to time.")
    var samples = 200

    @Option(help: "Milliseconds between writes.")
    var intervalMs = 20

    @Option(help: "Give up on one write after this many milliseconds.")
    var timeoutMs = 5_000

    @Flag(help: "Print the result as JSON.")
    var json = false

    func validate() throws {
      guard samples >= 1 else { throw ValidationError("--samples must be at least 1") }
      guard intervalMs >= 0, timeoutMs >= 1 else {
        throw ValidationError("--interval-ms and --timeout-ms must be positive")
      }
    }

    func run() async throws {
      let storage = try await StorageLocation(database).entitlementStorage(
        nowMs: SystemClock.nowMs(), create: false, connections: StorageConnections.tool,
        environment: ProcessInfo.processInfo.environment, logger: Logger(label: "tollgate.bench.visibility"))
      let (summary, lost) = try await StorageLifetime.using(storage) { storage in try await measure(storage) }
      if json {
        struct Output: Encodable {
          var samples: Int
          var notSeen: Int
          var latency: LatencySummary
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        print(
          String(decoding: try encoder.encode(Output(samples: samples, notSeen: lost, latency: summary)), as: UTF8.self)
        )
      } else {
        print(
          "tollgate bench visibility → \(servers.map(\.description).joined(separator: ", ")): \(samples) writes, "
            + "commit → active answer\(servers.count > 1 ? " on every replica" : ""), µs: "
            + "p50 \(Int(summary.p50Us))  p90 \(Int(summary.p90Us))  p99 \(Int(summary.p99Us))  max \(Int(summary.maxUs))"
            + (lost > 0 ? "; \(lost) not seen within \(timeoutMs) ms" : ""))
      }
      if lost > 0 { throw ExitCode(1) }
    }

    /// Writes and times the probes, then removes them: the latency summary and how many were not seen.
    private func measure(_ storage: any EntitlementStorage) async throws -> (LatencySummary, lost: Int) {
      let clients = servers.map { TollgateClient(host: $0.host, port: $0.port) }
      var latency = LatencyRecorder()
      var lost = 0
      let tag = "visibility-\(getpid())-"
      for n in 0..<samples {
        let userId = tag + String(n)
        let now = SystemClock.nowMs()
        let record = EntitlementRecord(
          userId: userId, entitlement: "visibility-probe", source: "promotional:\(userId)", store: .promotional,
          productId: "probe", environment: .production, state: .active, willRenew: false, expiresAtMs: now + 3_600_000,
          accessEndsAtMs: now + 3_600_000, verifiedAtMs: now)
        _ = try await storage.replaceEntitlements(
          userId: userId, with: [record], reason: "visibility probe", nowMs: now)
        let committed = ContinuousClock.now
        var unseen = Array(clients.indices)
        while !unseen.isEmpty, ContinuousClock.now - committed < .milliseconds(timeoutMs) {
          var still: [Int] = []
          for index in unseen
          where !(try await clients[index].isSubscriber(userId: userId, entitlement: "visibility-probe").active) {
            still.append(index)
          }
          unseen = still
        }
        if unseen.isEmpty { latency.record(ContinuousClock.now - committed) } else { lost += 1 }
        try await Task.sleep(for: .milliseconds(intervalMs))
      }
      // (On an error the process exits, which closes the connection as well.)
      for client in clients { await client.close() }
      let cleanup = (0..<samples).map { (userId: tag + String($0), records: [EntitlementRecord]()) }
      try await storage.replaceEntitlements(
        batch: cleanup, reason: "visibility probe cleanup", nowMs: SystemClock.nowMs())

      return (latency.summary, lost)
    }
  }
}
