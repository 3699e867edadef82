import Foundation
import Logging
import PropertyBased
import StoreSimulator
import Testing
import TollgateClient
import TollgateSQLite
import TollgateService
import TollgateStorage
import TollgateTesting
import TollgateWorkerSQLite

#if canImport(Glibc)
  import Glibc
#endif

/// The worker as a real process, killed with SIGKILL at random moments while the simulator's
/// clock runs through renewals and cancellations, its API and notifications faulty now and then.
/// Short by default (CI); `TOLLGATE_SOAK_DAYS` runs more virtual days (e.g. 365), and
/// `TOLLGATE_SOAK_SEED` replays a run.
///
/// What must hold: every notification the worker acknowledged is stored and applied; every renewal
/// at the store gives exactly one `renewed` event; a renewing subscriber is never read as not
/// entitled (no false revocation); a cancelled one is never read as entitled after their expiry
/// (no false grant).
@Suite("Worker soak", .serialized)
struct WorkerSoakTests {
  static let hour: Int64 = 3_600_000
  static let day: Int64 = 86_400_000

  struct Tally: CustomStringConvertible {
    var steps = 0
    var kills = 0
    var faults = 0
    var samples = 0
    var falseRevocations: [String] = []
    var falseGrants: [String] = []
    var description: String {
      "\(steps) steps, \(kills) kills, \(faults) faults, \(samples) samples, "
        + "\(falseRevocations.count) false revocations, \(falseGrants.count) false grants"
    }
  }

  @Test("kill -9 at random moments under store faults: acknowledged notifications applied once, no false answers")
  func soak() async throws {
    let environment = ProcessInfo.processInfo.environment
    let days = environment["TOLLGATE_SOAK_DAYS"].flatMap(Int64.init) ?? 36
    let seed = environment["TOLLGATE_SOAK_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
    // A deterministic generator (swift-property-based's), so a failing run can be replayed.
    var random = Xoshiro(seed: (seed, seed ^ 0x5555, ~seed, seed &* 31))
    func chance(_ probability: Double) -> Bool { Double.random(in: 0..<1, using: &random) < probability }
    let workers = try await WorkerProcesses.make(prefix: "tollgate-soak", receivingNotifications: true)
    let sim = workers.sim
    let now = FollowedClock.following { sim.clockNowMs }
    let storage = try SQLiteEntitlementStorage(path: workers.database, nowMs: now())
    var worker = try await workers.start().process
    let server = try await EntitlementServer.start(
      config: .init(host: "127.0.0.1", port: 0), storage: storage, nowMs: now, logger: Logger(label: "soak.serve"))
    async let serving: Void = server.run()
    let client = TollgateClient(host: "127.0.0.1", port: server.port)

    // Six subscribers who keep renewing, three who cancel at once.
    let renewing = (0..<6).map { "renewing-\($0)" }
    let cancelling = (0..<3).map { "cancelling-\($0)" }
    var chains: [String: String] = [:]
    var expiries: [String: Int64] = [:]
    for user in renewing + cancelling {
      let purchase = try await sim.purchase(
        .init(productId: Stack.premium, bundleId: Stack.bundleId, environment: "Sandbox"))
      var submit = Tollgate_V1_SubmitPurchaseRequest()
      submit.userID = user
      submit.store = .appStore
      submit.receipt = purchase.signedTransaction
      submit.waitMs = 8_000
      let response = try await client.submitPurchase(submit, timeout: .seconds(10))
      #expect(response.status == .verified, "\(user): \(response.rejectionReason)")
      chains[user] = purchase.originalTransactionId
    }
    for user in cancelling {
      let snapshot = try await sim.setAutoRenew(chains[user]!, enabled: false)
      expiries[user] = snapshot.expiresDate
    }

    let diagnostics = try SQLiteWorkerStorage(path: workers.database, nowMs: now())
    var tally = Tally()
    let steps = Int(days * Self.day / (12 * Self.hour))
    for _ in 0..<steps {
      tally.steps += 1
      if chance(0.2) {
        try sim.addFault(FaultRule(target: "apple.api", mode: .error500, count: Int.random(in: 1...3, using: &random)))
        tally.faults += 1
      }
      if chance(0.1) {
        let mode: FaultRule.Mode = chance(0.5) ? .duplicate : .reorder
        try sim.addFault(FaultRule(target: "apple.notifications", mode: mode, count: 1))
        tally.faults += 1
      }
      _ = try await sim.advance(byMs: 12 * Self.hour)
      if chance(0.15) {
        // A kill while it works: after 0-40 ms, then a restart.
        try await Task.sleep(for: .milliseconds(Int.random(in: 0..<40, using: &random)))
        kill(worker.process.processIdentifier, SIGKILL)
        worker.process.waitUntilExit()
        tally.kills += 1
        worker = try await workers.start().process
      }
      // The worker follows the simulator's clock by polling it every 100 ms: let it see the jump
      // (in production its clock is the real one), and act on it.
      try await Task.sleep(for: .milliseconds(250))
      let atMs = sim.clockNowMs
      for user in renewing {
        tally.samples += 1
        let answer = try await client.isSubscriber(userId: user, entitlement: "premium")
        if !answer.active {
          // What the worker holds and what the store says, to tell why.
          let held = try await diagnostics.subscription(store: .appStore, purchaseId: chains[user]!)
          let store = try sim.subscription(chains[user]!)
          tally.falseRevocations.append(
            "\(user) at \(atMs): answer \(answer.state) until \(answer.expiresAtMs); worker holds "
              + "\(held.map { "\($0.state) \($0.reason) until \($0.accessEndsAtMs), next check \($0.nextCheckAtMs ?? 0), failures \($0.failures)" } ?? "nothing"); "
              + "store says \(store.state) until \(store.expiresDate)")
        }
      }
      for user in cancelling where atMs > expiries[user]! + Self.hour {
        tally.samples += 1
        if try await client.isSubscriber(userId: user, entitlement: "premium").active {
          tally.falseGrants.append("\(user) at \(atMs)")
        }
      }
    }

    // The faults end; everything stored is applied.
    sim.clearFaults()
    let workerStorage = diagnostics
    let drained = try await eventually(timeout: .seconds(20)) {
      let counts = try await workerStorage.inboxCounts()
      return (counts["pending"] ?? 0) + (counts["processing"] ?? 0) == 0
    }
    #expect(drained != nil, "the inbox never drained")
    try await Task.sleep(for: .milliseconds(300))

    #expect(tally.falseRevocations.isEmpty, "seed \(seed): \(tally.falseRevocations)")
    #expect(tally.falseGrants.isEmpty, "seed \(seed): \(tally.falseGrants)")
    // Every notification the worker answered 2xx is stored, and applied.
    let acknowledged = Set(
      sim.notifications.filter { $0.attempts.contains { (200..<300).contains($0.httpStatus ?? 0) } }.map(
        \.notificationUUID))
    let connection = try Connection(path: workers.database, options: .init(readOnly: true, create: false))
    let stored = try connection.prepare("SELECT dedupe_key, status FROM inbox WHERE kind = 'notification'").rows {
      ($0.string(at: 0), $0.string(at: 1))
    }
    // Keys are `<route>:<notificationUUID>`.
    let storedKeys = Set(stored.map { String($0.0.split(separator: ":", maxSplits: 1).last ?? "") })
    let lost = acknowledged.subtracting(storedKeys)
    #expect(lost.isEmpty, "seed \(seed): acknowledged but not stored: \(lost) of \(acknowledged.count)")
    #expect(stored.allSatisfy { $0.1 == "verified" }, "seed \(seed): \(stored.filter { $0.1 != "verified" })")
    // Each renewal at the store, exactly one `renewed` event.
    for user in renewing {
      let renewals = try sim.subscription(chains[user]!).transactionIds.count - 1
      let events = try await workerStorage.events(userId: user).map(\.kind)
      #expect(renewals >= 1)
      #expect(events.filter { $0 == "renewed" }.count == renewals, "seed \(seed) \(user): \(events)")
      #expect(!events.contains("expired") && !events.contains("revoked"), "seed \(seed) \(user): \(events)")
    }
    print(
      "worker soak (seed \(seed), \(days) virtual days): \(tally), \(acknowledged.count) notifications acknowledged")

    worker.terminate()
    await client.close()
    await server.shutdown()
    try await serving
    await workers.remove()
  }
}
