import Foundation
import StoreSimulator
import Testing
import TollgateCore
import TollgateTesting

/// Issue 26: two `tollgate worker` processes on one SQLite database (`worker.exclusive` false),
/// the App Store and Google Play simulated over HTTP. Correctness comes from storage (claimed due
/// checks, conditional applies), not from one worker per database: every due check is one store
/// read, whichever worker takes it, and a refund is never undone by the other worker's read of
/// the chain from before it. (With `exclusive` true, the default, a second worker refuses to
/// start: `WorkerLeaseEndToEndTests`.)
@Suite("Two workers on one SQLite database", .serialized)
struct TwoWorkersEndToEndTests {
  static let dayMs: Int64 = 86_400_000
  /// What the workers log for every verification they apply.
  static let applied = "subscription verified"
  /// What a worker logs when another write of a chain landed between its read and its write.
  static let overtaken = "another write of the chain landed first"

  @Test("every due check is one store read, and both workers take their share of them")
  func oneStoreReadPerDueCheck() async throws {
    // No notifications: every read of a chain is its submission's or a due check's.
    try await Self.withTwoWorkers(prefix: "tollgate-two-workers-reads", notifications: false) {
      workers, first, second in
      let chains = try await workers.buyAndSubmit(40)
      let before = [first.count(Self.applied), second.count(Self.applied)]
      workers.sim.clearStoreRequests()
      let rounds = 3
      for _ in 0..<rounds {
        // A day on: every chain comes due at once (its daily check).
        let target = try await workers.sim.advance(byMs: Self.dayMs + 5 * 60_000).nowMs
        try await workers.settle(chains, checkedAfterMs: target)
      }
      // A second read of a chain, had a worker taken a check another one holds, lands by now.
      try await Task.sleep(for: .milliseconds(500))
      let requests = workers.sim.storeRequests
      let wrong = chains.compactMap { chain -> String? in
        let reads = requests.count(where: chain.isRead)
        return reads == rounds ? nil : "\(chain.user) (\(chain.store.rawValue)): \(reads)"
      }
      #expect(wrong.isEmpty, "store reads per chain, \(rounds) due checks each: \(wrong)")
      let applied = [first.count(Self.applied) - before[0], second.count(Self.applied) - before[1]]
      #expect(applied.allSatisfy { $0 > 0 }, "both workers take due checks: \(applied)")
      #expect(applied.reduce(0, +) == chains.count * rounds, "one verification per due check: \(applied)")
      let entitled = try await workers.entitled(chains)
      #expect(entitled == Set(chains.map(\.user)), "every check kept access")
    }
  }

  @Test("purchases submitted while their notifications arrive: each chain read once per inbox item, whichever worker")
  func oneStoreReadPerInboxItem() async throws {
    // Issue 27: a purchase's submission and the store's notification of it reach the inbox within
    // milliseconds, and the two workers often take one each: both read the chain, and one write
    // lands first. The other applies its own answer again, ends on that write, or binds its
    // submitter on it, without reading the chain from the store a second time.
    try await Self.withTwoWorkers(prefix: "tollgate-two-workers-inbox") { workers, first, second in
      workers.sim.clearStoreRequests()
      let chains = try await workers.buyAndSubmit(40)
      try await workers.settle(chains, checkedAfterMs: 0)
      // A second read of a chain, had a worker asked the store again after a conflict, lands by now.
      try await Task.sleep(for: .milliseconds(500))
      let requests = workers.sim.storeRequests
      let notifications = workers.sim.notifications.filter { $0.state == "delivered" }
      var raced = 0
      let wrong = chains.compactMap { chain -> String? in
        // The submission, and each notification about the chain (the worker keeps one per UUID).
        let notified = Set(notifications.filter { $0.subject == chain.purchaseId }.map(\.notificationUUID)).count
        let reads = requests.count(where: chain.isRead)
        if notified > 0 { raced += 1 }
        return reads <= 1 + notified
          ? nil : "\(chain.user) (\(chain.store.rawValue)): \(reads) reads, \(notified + 1) items"
      }
      #expect(raced == chains.count, "every purchase was notified: \(raced) of \(chains.count)")
      #expect(wrong.isEmpty, "store reads per chain beyond one per inbox item: \(wrong)")
      let applied = [first.count(Self.applied), second.count(Self.applied)]
      #expect(applied.allSatisfy { $0 > 0 }, "both workers take inbox items: \(applied)")
      let overtaken = first.count(Self.overtaken) + second.count(Self.overtaken)
      let entitled = try await workers.entitled(chains)
      #expect(entitled == Set(chains.map(\.user)), "every buyer entitled (\(overtaken) writes overtaken)")
      let (storage, _) = try workers.storage()
      for chain in chains {
        let bound = try await storage.subscription(store: chain.store, purchaseId: chain.purchaseId)?.userId
        #expect(bound == chain.user, "\(chain.purchaseId) bound to \(bound ?? "nobody")")
      }
    }
  }

  @Test("a refund while the other worker checks the chain: the user ends, and stays, not entitled")
  func refundRacingTheOtherWorkersCheck() async throws {
    try await Self.withTwoWorkers(prefix: "tollgate-two-workers-refunds") { workers, _, _ in
      let chains = try await workers.buyAndSubmit(32)
      var refunded: [BoughtChain] = []
      for round in 0..<3 {
        let target = try await workers.sim.advance(byMs: Self.dayMs + 60_000).nowMs
        // Refund chains the moment the store is asked about them for this round's check.
        refunded += try await Self.refundWhileChecked(
          chains.filter { !refunded.contains($0) }, count: 6, workers: workers, afterMs: target)
        try await workers.settle(chains, checkedAfterMs: target)
        let entitled = try await workers.entitled(chains)
        let back = refunded.filter { entitled.contains($0.user) }.map(\.user)
        #expect(back.isEmpty, "round \(round): refunded users entitled again: \(back)")
        let lost = chains.filter { !refunded.contains($0) && !entitled.contains($0.user) }.map(\.user)
        #expect(lost.isEmpty, "round \(round): users who paid lost access: \(lost)")
      }
      // More ticks: both workers check every chain again; no write puts a refunded user back.
      for _ in 0..<2 {
        let target = try await workers.sim.advance(byMs: Self.dayMs + 60_000).nowMs
        try await workers.settle(chains, checkedAfterMs: target)
      }
      let entitled = try await workers.entitled(chains)
      #expect(refunded.filter { entitled.contains($0.user) }.isEmpty)
      #expect(entitled == Set(chains.filter { !refunded.contains($0) }.map(\.user)))
      // One refund each: a second would mean access came back in between, and a later read took it again.
      let (storage, _) = try workers.storage()
      for chain in refunded {
        let endings = try await storage.events(userId: chain.user).filter { ["refunded", "revoked"].contains($0.kind) }
        #expect(endings.count == 1, "\(chain.user) (\(chain.store.rawValue)): \(endings.map(\.kind))")
      }
    }
  }

  /// Refunds `count` of `candidates` (each as soon as the store is first asked about it after the
  /// virtual `afterMs`, while a worker's check of it is in flight), concurrently; returns them.
  static func refundWhileChecked(
    _ candidates: [BoughtChain], count: Int, workers: SharedDatabaseWorkers, afterMs: Int64
  ) async throws -> [BoughtChain] {
    let sim = workers.sim
    return try await withThrowingTaskGroup(of: Void.self) { group in
      var chosen: [BoughtChain] = []
      let deadline = ContinuousClock.now + .seconds(10)
      while chosen.count < count {
        let asked = sim.storeRequests.filter { $0.virtualTimeMs >= afterMs }
        var next = candidates.filter { chain in !chosen.contains(chain) && asked.contains(where: chain.isAsked) }
        if ContinuousClock.now > deadline { next = candidates.filter { !chosen.contains($0) } }
        for chain in next.prefix(count - chosen.count) {
          chosen.append(chain)
          group.addTask { try await chain.refund(at: sim) }
        }
        try await Task.sleep(for: .milliseconds(1))
      }
      try await group.waitForAll()
      return chosen
    }
  }

  /// Starts the simulator and two workers on one database (the first receives notifications),
  /// runs `body`, and stops them all, whether `body` returns or throws.
  static func withTwoWorkers(
    prefix: String, notifications: Bool = true,
    _ body: (SharedDatabaseWorkers, _ first: LoggedWorker, _ second: LoggedWorker) async throws -> Void
  ) async throws {
    // One store call in flight per store and worker: each takes at most 16 checks at once, so
    // neither can take every due check before the other looks.
    let workers = try await SharedDatabaseWorkers.make(
      prefix: prefix, notifications: notifications, workerSettings: ["storeConcurrency": 1])
    var started: [LoggedWorker] = []
    do {
      started.append(try await workers.start("first", receivesNotifications: true))
      started.append(try await workers.start("second"))
      try await body(workers, started[0], started[1])
    } catch {
      for worker in started { await worker.stop() }
      await workers.remove()
      throw error
    }
    for worker in started {
      let status = await worker.stop()
      #expect(status == 0, "\(worker.name) exited with \(status): \(worker.log.suffix(2_000))")
    }
    await workers.remove()
  }
}
