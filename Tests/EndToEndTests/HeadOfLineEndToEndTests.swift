import Foundation
import StoreSimulator
import Testing
import TollgateCore
import TollgateSQLite
import TollgateStorage
import TollgateTesting
import TollgateWorkerSQLite

/// Issue 24: with 5% of store calls hanging, the worker's throughput fell 19–42× (a batch waited
/// for its slowest call, and hung calls held every store permit). A hanging call must delay only
/// its own chain. A real `tollgate worker` against the simulator over HTTP.
@Suite("Head-of-line blocking", .serialized)
struct HeadOfLineEndToEndTests {
  @Test("one Apple call in ten hangs: every other submission is verified while the hung calls still hang")
  func hangingCallsDelayOnlyTheirChains() async throws {
    let run = try await Self.submitWhileCallsHang(
      prefix: "tollgate-hol", purchases: 40, hangingFraction: 0.1, storeConcurrency: nil, moreStallsThan: 0)
    #expect(run.unblocked, "\(run.verified) of \(run.purchases) verified with \(run.stalls) calls hanging")
    #expect(run.stalls < run.purchases / 2)
  }

  @Test(
    "more calls hang than the loop has places: the items waiting on them give their places back, the rest are verified")
  func hungCallsNeverFillTheLoop() async throws {
    // One store call permit: the loop holds 16 items. Every second call hangs: about 30 items wait
    // on a hung call at once, more than 16.
    let run = try await Self.submitWhileCallsHang(
      prefix: "tollgate-hol-places", purchases: 60, hangingFraction: 0.5, storeConcurrency: 1, moreStallsThan: 16)
    #expect(run.unblocked, "\(run.verified) of \(run.purchases) verified with \(run.stalls) calls hanging")
  }

  /// A real worker is submitted `purchases` Apple purchases while `hangingFraction` of the
  /// simulator's API calls hang (no answer until the worker gives up). Until the first hung call
  /// times out it watches whether every chain whose calls were answered is verified, with more
  /// than `moreStallsThan` calls hanging: none waited behind a hung call.
  ///
  /// Hung calls time out after 150 s, not 10 s: the window in which every other chain must be
  /// verified does not depend on how busy two cores are under the full suite (with one permit the
  /// answered chains took up to 54 s there; a passing run returns as soon as they are verified).
  static func submitWhileCallsHang(
    prefix: String, purchases: Int, hangingFraction: Double, storeConcurrency: Int?, moreStallsThan: Int
  ) async throws -> (unblocked: Bool, stalls: Int, verified: Int, purchases: Int) {
    let workers = try await WorkerProcesses.make(prefix: prefix)
    try Self.setAppleRequestTimeout(ms: 150_000, storeConcurrency: storeConcurrency, in: workers.config)
    let sim = workers.sim
    let worker = try await workers.start().process
    defer { worker.terminate() }
    let storage = try SQLiteWorkerStorage(path: workers.database, nowMs: 1, create: false)
    let inbox = try SQLiteEntitlementStorage(path: workers.database, nowMs: 1)
    var receipts: [String] = []
    for _ in 0..<purchases {
      receipts.append(
        try await sim.purchase(.init(productId: Stack.premium, bundleId: Stack.bundleId, environment: "Sandbox"))
          .signedTransaction)
    }
    try sim.addFault(
      FaultRule(target: "apple.api", mode: .stall, count: nil, delayMs: 300_000, fraction: hangingFraction))
    for (user, receipt) in receipts.enumerated() {
      _ = try await inbox.submitPurchase(
        PurchaseSubmission(userId: "user-\(user)", store: .appStore, receipt: receipt), nowMs: SystemClock.nowMs())
    }
    var stalls = 0
    var verified = 0
    var unblocked = false
    let deadline = ContinuousClock.now + .seconds(180)
    while !unblocked && ContinuousClock.now < deadline {
      let applied = sim.appliedFaults.filter { $0.mode == .stall }
      stalls = applied.count
      verified = try await storage.inboxCounts()["verified", default: 0]
      if let first = applied.first?.realTimeMs, SystemClock.nowMs() > first + 145_000 { break }
      unblocked = stalls > moreStallsThan && verified >= receipts.count - stalls
      if !unblocked { try await Task.sleep(for: .milliseconds(100)) }
    }
    sim.clearFaults()
    worker.terminate()
    _ = worker.finish()
    await workers.remove()
    return (unblocked, stalls, verified, purchases)
  }

  /// Sets the App Store app's `requestTimeoutMs` (and, when given, `worker.storeConcurrency`) in
  /// the worker's config file.
  static func setAppleRequestTimeout(ms: Int, storeConcurrency: Int? = nil, in path: String) throws {
    let url = URL(fileURLWithPath: path)
    guard var config = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any],
      var apps = config["appStore"] as? [[String: Any]], !apps.isEmpty
    else { throw CocoaError(.fileReadCorruptFile) }
    apps[0]["requestTimeoutMs"] = ms
    config["appStore"] = apps
    if let storeConcurrency, var worker = config["worker"] as? [String: Any] {
      worker["storeConcurrency"] = storeConcurrency
      config["worker"] = worker
    }
    try JSONSerialization.data(withJSONObject: config).write(to: url)
  }
}
