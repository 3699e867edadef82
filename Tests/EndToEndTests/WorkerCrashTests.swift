import Foundation
import Logging
import StoreSimulator
import Testing
import TollgateClient
import TollgateCore
import TollgateCrypto
import TollgateSQLite
import TollgateServer
import TollgateService
import TollgateStorage
import TollgateTesting
import TollgateWorkerSQLite

#if canImport(Glibc)
  import Glibc
#endif

/// `tollgate worker` as a real process, killed with SIGKILL between storing a notification and
/// applying it.
@Suite("Worker crash", .serialized)
struct WorkerCrashTests {
  @Test("kill -9 with submissions in flight: the restarted worker takes them up at once, not after their 60 s lease")
  func inFlightReclaimed() async throws {
    let workers = try await WorkerProcesses.make(prefix: "tollgate-reclaim")
    let sim = workers.sim
    var worker = try await workers.start().process
    defer { worker.terminate() }
    let storage = try SQLiteWorkerStorage(path: workers.database, nowMs: 1, create: false)
    let inbox = try SQLiteEntitlementStorage(path: workers.database, nowMs: 1)
    // Apple answers slowly, so the submissions are in flight when the worker is killed.
    try sim.addFault(FaultRule(target: "apple.api", mode: .slow, count: nil, delayMs: 5_000))
    for user in ["alice", "bob"] {
      let purchase = try await sim.purchase(
        .init(productId: Stack.premium, bundleId: Stack.bundleId, environment: "Sandbox"))
      _ = try await inbox.submitPurchase(
        PurchaseSubmission(userId: user, store: .appStore, receipt: purchase.signedTransaction),
        nowMs: SystemClock.nowMs())
    }
    let inFlight = try await eventually { try await storage.inboxCounts() == ["processing": 2] }
    let claimed = try await storage.inboxCounts()
    #expect(inFlight != nil, "the submissions were never claimed: \(claimed)")
    kill(worker.process.processIdentifier, SIGKILL)
    worker.process.waitUntilExit()
    sim.clearFaults()

    // The restarted worker (this machine, the killed one's process gone) takes the lease over and,
    // with it, the items the killed one had claimed: its writes are fenced off, so they need not
    // wait out their 60 s lease.
    worker = try await workers.start().process
    let verified = try await eventually(timeout: .seconds(20)) {
      try await storage.inboxCounts() == ["verified": 2]
    }
    let counts = try await storage.inboxCounts()
    #expect(verified != nil, "in-flight items waited for their lease: \(counts)")
    worker.terminate()
    _ = worker.finish()
    await workers.remove()
  }

  @Test("kill -9 after a notification is stored but before it is applied: after restart it lands, exactly once")
  func killNine() async throws {
    let workers = try await WorkerProcesses.make(prefix: "tollgate-crash", receivingNotifications: true)
    let sim = workers.sim
    let database = workers.database
    func startWorker() async throws -> ChildProcess { try await workers.start().process }

    let now = FollowedClock.following { sim.clockNowMs }
    let storage = try SQLiteEntitlementStorage(path: database, nowMs: now())
    let server = try await EntitlementServer.start(
      config: .init(host: "127.0.0.1", port: 0), storage: storage, nowMs: now, logger: Logger(label: "crash.serve"))
    // Stopped at the end, or cancelled (at once) when the test throws.
    async let serving: Void = server.run()
    let client = TollgateClient(host: "127.0.0.1", port: server.port)

    // 1. A verified purchase, through the first worker process.
    var first = try await startWorker()
    let purchase = try await sim.purchase(
      .init(productId: Stack.premium, bundleId: Stack.bundleId, environment: "Sandbox"))
    var submit = Tollgate_V1_SubmitPurchaseRequest()
    submit.userID = "alice"
    submit.store = .appStore
    submit.receipt = purchase.signedTransaction
    submit.waitMs = 8_000
    let verified = try await client.submitPurchase(submit, timeout: .seconds(10))
    #expect(verified.status == .verified)
    let before = try await client.isSubscriber(userId: "alice", entitlement: "premium")
    #expect(before.active)

    // 2. Apple's API goes down; the renewal notification arrives and is stored, but cannot be applied.
    try sim.addFault(FaultRule(target: "apple.api", mode: .error500, count: nil))
    _ = try await sim.advance(byMs: 30 * 86_400_000 + 60_000)
    let workerStorage = try SQLiteWorkerStorage(path: database, nowMs: now())
    let stored = try await eventually {
      let counts = try await workerStorage.inboxCounts()
      return (counts["pending"] ?? 0) + (counts["processing"] ?? 0) >= 1
    }
    #expect(stored != nil, "the notification was never stored")

    // 3. kill -9.
    kill(first.process.processIdentifier, SIGKILL)
    first.process.waitUntilExit()
    #expect(first.process.terminationReason == .uncaughtSignal)
    let during = try await client.isSubscriber(userId: "alice", entitlement: "premium")
    // Still entitled: the renewal's signed notification may already have advanced it, never back.
    #expect(during.active)
    #expect(during.expiresAtMs >= before.expiresAtMs)

    // 4. Apple is back; a new worker process picks the stored notification up.
    sim.clearFaults()
    first = try await startWorker()
    defer { first.terminate() }
    let landed = try await eventually(timeout: .seconds(15)) {
      try await client.isSubscriber(userId: "alice", entitlement: "premium").expiresAtMs > before.expiresAtMs
    }
    #expect(landed != nil, "the renewal never landed")
    let done = try await eventually {
      let counts = try await workerStorage.inboxCounts()
      return (counts["pending"] ?? 0) + (counts["processing"] ?? 0) == 0
    }
    #expect(done != nil)
    try await Task.sleep(for: .milliseconds(300))
    let renewed = try await workerStorage.events(userId: "alice").filter { $0.kind == "renewed" }
    #expect(renewed.count == 1)
    #expect(try await client.isSubscriber(userId: "alice", entitlement: "premium").active)
    await client.close()
    await server.shutdown()
    try await serving
    await workers.remove()
  }
}
