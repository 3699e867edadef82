import Testing
import TollgateCore
import TollgateStorage
import TollgateTesting
import TollgateWorker
import TollgateWorkerPostgres

/// Named job leases on PostgreSQL between two workers, each on a pool of its own.
@Suite("PostgreSQL job leases")
struct PostgresJobLeaseTests {
  func isLeaseLost(_ error: any Error) -> Bool { (error as? StorageConflict)?.kind == .leaseLost }

  @Test("of many takes at once from two pools, one wins; at expiry, one take-over wins, counted once")
  func concurrentTakesOneWins() async throws {
    try await PostgresWorkerDatabase.withTwoStorages { first, second in
      let storages = [first, second]
      func race(nowMs: Int64, round: Int) async throws -> [JobLease] {
        try await withThrowingTaskGroup(of: JobLease?.self) { group in
          for n in 0..<8 {
            group.addTask {
              try await storages[n % 2].takeJobLease(
                name: "housekeeping", ownerId: "r\(round)-\(n)", nowMs: nowMs, ttlMs: 1_000)
            }
          }
          var winners: [JobLease] = []
          for try await lease in group { if let lease { winners.append(lease) } }
          return winners
        }
      }
      let free = try await race(nowMs: 100, round: 1)
      #expect(free.count == 1 && free.first?.generation == 1, "free: \(free)")
      #expect(try await race(nowMs: 500, round: 2).isEmpty, "held and unexpired")
      let over = try await race(nowMs: 1_100, round: 3)
      #expect(over.count == 1 && over.first?.generation == 2, "expired: \(over)")
    }
  }

  @Test("a released lease is anyone's, with the next generation; the releaser's fenced writes are refused")
  func releasedLeaseFences() async throws {
    try await PostgresWorkerDatabase.withTwoStorages { first, second in
      let endpoint = "https://hooks.example.com/a"
      let name = JobLease.webhook(WebhookSettings(url: endpoint, secretEnv: "HOOKS_SECRET"))
      _ = try await first.addGrant(
        userId: "vip", entitlement: "premium", expiresAtMs: 9_000, note: nil, actor: nil, nowMs: 5,
        recompute: WorkerStorageConformance.grantRecompute)
      #expect(try await first.webhookCursor(endpoint: endpoint, nowMs: 6) == 1, "a new cursor starts at the newest")
      _ = try await first.addGrant(
        userId: "vip", entitlement: "gold", expiresAtMs: 9_000, note: nil, actor: nil, nowMs: 7,
        recompute: WorkerStorageConformance.grantRecompute)
      let held = try #require(try await first.takeJobLease(name: name, ownerId: "a", nowMs: 10, ttlMs: 60_000))
      try await first.releaseJobLease(held)
      await #expect {
        try await first.advanceWebhookCursor(endpoint: endpoint, to: 2, nowMs: 11, lease: held)
      } throws: { self.isLeaseLost($0) }
      let taken = try #require(try await second.takeJobLease(name: name, ownerId: "b", nowMs: 12, ttlMs: 60_000))
      #expect(taken.generation == held.generation + 1)
      // Releasing a holding that is not current changes nothing.
      try await first.releaseJobLease(held)
      #expect(try await first.takeJobLease(name: name, ownerId: "a", nowMs: 13, ttlMs: 60_000) == nil)
      try await second.advanceWebhookCursor(endpoint: endpoint, to: 2, nowMs: 14, lease: taken)
      #expect(try await first.webhookCursor(endpoint: endpoint, nowMs: 15) == 2)
      // The cursor never moves back.
      try await second.advanceWebhookCursor(endpoint: endpoint, to: 1, nowMs: 16, lease: taken)
      #expect(try await first.webhookCursor(endpoint: endpoint, nowMs: 17) == 2)
    }
  }

  @Test("a worker holding the worker lease takes a job lease another worker left unexpired at once")
  func exclusiveTakesOver() async throws {
    try await PostgresWorkerDatabase.withTwoStorages { left, exclusive in
      let gone = try #require(
        try await left.takeJobLease(name: "sweep:app_store", ownerId: "a", nowMs: 10, ttlMs: 60_000))
      #expect(try await exclusive.takeJobLease(name: "sweep:app_store", ownerId: "b", nowMs: 20, ttlMs: 60_000) == nil)
      #expect(try await exclusive.takeWorkerLease(WorkerStorageConformance.holder("b", heartbeat: 30), replacing: nil))
      let taken = try #require(
        try await exclusive.takeJobLease(name: "sweep:app_store", ownerId: "b", nowMs: 40, ttlMs: 60_000))
      #expect(taken.generation == gone.generation + 1)
    }
  }

  @Test("two workers opening one endpoint's cursor at once both get the one cursor written")
  func cursorOpenedOnce() async throws {
    try await PostgresWorkerDatabase.withTwoStorages { first, second in
      _ = try await first.addGrant(
        userId: "vip", entitlement: "premium", expiresAtMs: 9_000, note: nil, actor: nil, nowMs: 5,
        recompute: WorkerStorageConformance.grantRecompute)
      let storages = [first, second]
      let cursors = try await withThrowingTaskGroup(of: Int64.self) { group in
        for n in 0..<8 {
          group.addTask { try await storages[n % 2].webhookCursor(endpoint: "https://hooks.example.com/x", nowMs: 9) }
        }
        var all: [Int64] = []
        for try await cursor in group { all.append(cursor) }
        return all
      }
      #expect(cursors == Array(repeating: 1, count: 8))
    }
  }
}
