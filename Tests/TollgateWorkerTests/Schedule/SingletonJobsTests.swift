import Logging
import Synchronization
import Testing
import TollgateCore
import TollgateTesting

@testable import TollgateWorker

/// Singleton jobs with several workers on one database (the fake): each job runs on the worker
/// that holds its named lease, and only there.
@Suite("Singleton jobs")
struct SingletonJobsTests {
  static let logger = Logger(label: "test.jobs", factory: { _ in SwiftLogNoOpLogHandler() })

  /// One worker's job leases: renewed every 50 ms, each lasting `ttl`.
  static func worker(_ storage: FakeWorkerStorage, ttl: Duration = .seconds(5)) -> SingletonJobs {
    SingletonJobs(storage: storage, ttl: ttl, renewEvery: .milliseconds(50), logger: logger)
  }

  @Test("two workers' housekeeping on one database: one prunes; when it stops, the other takes over")
  func oneHousekeeping() async throws {
    let parts = WorkerParts()
    let housekeeping = Housekeeping(
      storage: parts.storage, settings: parts.settings, webhookEndpoints: [], nowMs: parts.clock.function,
      logger: Self.logger)
    let (a, b) = (Self.worker(parts.storage), Self.worker(parts.storage))
    let first = Task { await housekeeping.run(jobs: a) }
    #expect(await eventually { await parts.storage.jobLeaseBook.prunes == 1 } != nil)
    #expect(a.heldNames == [JobLease.housekeeping])
    let second = Task { await housekeeping.run(jobs: b) }
    // The second worker keeps trying (every 50 ms) and never prunes while the first holds it.
    try await Task.sleep(for: .milliseconds(400))
    #expect(await parts.storage.jobLeaseBook.prunes == 1, "only the holder prunes")
    #expect(b.heldNames.isEmpty)
    // The first stops (graceful shutdown releases its lease): the second takes over and prunes.
    first.cancel()
    await first.value
    #expect(await eventually { await parts.storage.jobLeaseBook.prunes == 2 } != nil)
    #expect(b.heldNames == [JobLease.housekeeping])
    let held = await parts.storage.jobLeaseBook.leases[JobLease.housekeeping]
    #expect(held?.ownerId == b.ownerId && held?.generation == 2, "a take-over counts a generation")
    second.cancel()
    await second.value
    #expect(await parts.storage.jobLeaseBook.leases[JobLease.housekeeping]?.ownerId == "", "released at shutdown")
  }

  @Test("two workers' webhook dispatchers on one database: each event is delivered once")
  func oneWebhookDelivery() async throws {
    let parts = WorkerParts()
    let receiver = try await WebhookReceiver.start()
    let endpoint = WebhookSettings(url: receiver.url, secretEnv: "UNUSED")
    let dispatcher = WebhookDispatcher(
      endpoints: [endpoint], stats: parts.stats, secrets: [:], storage: parts.storage, httpClient: .shared,
      backoff: Backoff(baseMs: 10, maxMs: 100), pollMs: 5, nowMs: parts.clock.function, logger: Self.logger)
    let workers = [Self.worker(parts.storage), Self.worker(parts.storage)]
    try await withThrowingTaskGroup(of: Void.self) { group in
      for jobs in workers { group.addTask { await dispatcher.run(jobs: jobs) } }
      // The endpoint's stream starts after the newest event once its cursor is made.
      try #require(await eventually { await parts.storage.cursors[receiver.url] != nil } != nil)
      for n in 0..<12 {
        try await parts.reconciler.apply(
          parts.boughtNow("otx-\(n)"), observedAtMs: parts.now, claimant: "user-\(n)", completes: nil, reason: "t")
      }
      // The worker's clock moves slowly on (a millisecond a look, far from the leases' 15 s), so a
      // delivery that failed on a loaded machine is retried after its backoff.
      let delivered = await eventually(timeout: .seconds(20)) {
        parts.clock.advance(byMs: 1)
        return receiver.recorded.count >= 12
      }
      #expect(delivered != nil)
      // Time for a second deliverer, were there one, to send them again.
      try await Task.sleep(for: .milliseconds(300))
      group.cancelAll()
    }
    let ids = receiver.recorded.compactMap(\.eventId)
    #expect(ids.count == 12, "each event once, by one worker: \(ids.count) deliveries")
    #expect(Set(ids).count == 12)
    #expect(workers.filter { !$0.heldNames.isEmpty }.count <= 1)
    await receiver.stop()
  }

  @Test("a webhook endpoint's lease name shows no credential or query, and two endpoints never share one")
  func webhookLeaseNames() {
    let plain = WebhookSettings(url: "https://hooks.example.com/tollgate", secretEnv: "S")
    #expect(JobLease.webhook(plain) == "webhook:https://hooks.example.com/tollgate")
    let names = ["https://user:hunter2@hooks.example.com/t?token=abc", "https://hooks.example.com/t?token=abd"].map {
      JobLease.webhook(WebhookSettings(url: $0, secretEnv: "S"))
    }
    for name in names {
      #expect(name.hasPrefix("webhook:https://hooks.example.com/t#"), "\(name)")
      #expect(!name.contains("hunter2") && !name.contains("token") && !name.contains("abc"), "\(name)")
    }
    #expect(names[0] != names[1])
  }

  @Test("a job whose lease is taken over stops (its fenced writes refused) and starts again once it holds it")
  func lostLeaseStopsTheJobOnly() async throws {
    let storage = FakeWorkerStorage()
    let jobs = Self.worker(storage, ttl: .milliseconds(200))
    let runs = Mutex<[Int64]>([])
    let refused = Mutex(0)
    let running = Task {
      await jobs.run("webhook:test") { lease in
        runs.withLock { $0.append(lease.generation) }
        while true {
          do {
            try await storage.advanceWebhookCursor(endpoint: "test", to: 1, nowMs: 1, lease: lease)
          } catch let conflict as StorageConflict {
            refused.withLock { $0 += 1 }
            throw conflict
          }
          try await Task.sleep(for: .milliseconds(5))
        }
      }
    }
    #expect(await eventually { runs.withLock { $0 } == [1] } != nil)
    // Another worker takes it over, as if this one had been paused past its expiry (half a second
    // on), and holds it 500 ms.
    let held = try #require(await storage.jobLeaseBook.leases["webhook:test"])
    let intruder = try #require(
      await storage.takeJobLease(name: "webhook:test", ownerId: "other", nowMs: held.expiresAtMs + 500, ttlMs: 500))
    #expect(intruder.generation == 2)
    // The job stops (its next write is refused), and this worker takes the lease again once
    // the intruder's expires: the job runs again under a new generation.
    #expect(await eventually { runs.withLock { $0 } == [1, 3] } != nil, "\(runs.withLock { $0 })")
    #expect(refused.withLock { $0 } <= 1, "a refused write ended the first run, or the renewal did")
    #expect(jobs.heldNames == ["webhook:test"])
    running.cancel()
    await running.value
  }
}
