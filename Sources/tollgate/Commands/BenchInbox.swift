import ArgumentParser
import Foundation
import Logging
import TollgateBench
import TollgateCore
import TollgateStorageFactory
import TollgateWorker

extension Bench {
  struct Inbox: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "How many store notifications per second the worker's inbox can acknowledge on this disk.",
      discussion: """
        Stores --count notifications of --bytes each through the worker's storage, exactly as the \
        notification endpoint does before it answers 200 (one transaction each, deduplicated by key), \
        from --concurrency callers at once, and prints the rate and the latency of one store. With \
        --synchronous normal the commits are not fsynced (what durability costs; never how the worker \
        runs). Writes into --database, a scratch file it creates if missing: not the production database.
        """)

    @Option(
      help:
        "A scratch database: an SQLite file path (or sqlite:PATH), or postgres://USER@HOST:PORT/DATABASE?sslmode=MODE with the password in TOLLGATE_DATABASE_PASSWORD(_FILE) (created if missing)."
    )
    var database: String

    @Option(help: "How many notifications to store.")
    var count = 2_000

    @Option(help: "Bytes per notification (a signed V2 notification is about 4–6 KB).")
    var bytes = 4_096

    @Option(help: "Callers storing at once (the HTTP handlers of concurrent notifications).")
    var concurrency = 8

    @Option(
      help:
        "full (fsync every commit, as the worker runs) or normal (no fsync per commit); SQLite only: PostgreSQL's server settings decide."
    )
    var synchronous = "full"

    func validate() throws {
      guard count >= 1, bytes >= 1, concurrency >= 1 else {
        throw ValidationError("--count, --bytes and --concurrency must be at least 1")
      }
      guard StorageDurability(rawValue: synchronous.lowercased()) != nil else {
        throw ValidationError("--synchronous must be full or normal")
      }
    }

    func run() async throws {
      let mode = StorageDurability(rawValue: synchronous.lowercased()) ?? .full
      // On PostgreSQL, a connection per caller.
      let storage = try await StorageLocation(database).workerStorage(
        nowMs: SystemClock.nowMs(), create: true, durability: mode, connections: concurrency,
        environment: ProcessInfo.processInfo.environment, logger: Logger(label: "tollgate.bench.inbox"))
      let payload = [UInt8](repeating: 0x7b, count: bytes)
      let run = "bench-\(getpid())-\(SystemClock.nowMs())"
      let (latency, elapsed) = try await StorageLifetime.using(storage) { storage in
        let started = ContinuousClock.now
        let latency = try await store(storage, payload: payload, run: run)
        return (latency, ContinuousClock.now - started)
      }
      let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
      let summary = latency.summary
      print(
        "tollgate bench inbox (synchronous \(mode.rawValue.uppercased())): \(count) notifications of \(bytes) B, "
          + "\(concurrency) callers: \(Int((Double(count) / seconds).rounded())) notifications/s; one store, µs: "
          + "p50 \(Int(summary.p50Us))  p99 \(Int(summary.p99Us))  max \(Int(summary.maxUs))")
    }

    /// Stores the notifications from `concurrency` callers at once; the latency of each store.
    private func store(_ storage: any WorkerStorage, payload: [UInt8], run: String) async throws -> LatencyRecorder {
      try await withThrowingTaskGroup(of: LatencyRecorder.self) { group in
        for caller in 0..<concurrency {
          group.addTask {
            var latency = LatencyRecorder()
            for n in stride(from: caller, to: count, by: concurrency) {
              let begun = ContinuousClock.now
              _ = try await storage.storeNotification(
                route: "bench", dedupeKey: "\(run)-\(n)", payload: payload, nowMs: SystemClock.nowMs())
              latency.record(ContinuousClock.now - begun)
            }
            return latency
          }
        }
        var all = LatencyRecorder()
        for try await part in group { all.merge(part) }
        return all
      }
    }
  }
}
