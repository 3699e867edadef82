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
    let workers = try await WorkerProcesses.make(prefix: "tollgate-hol")
    // Hung calls time out after a minute, not 10 s: the window in which every other chain must be
    // verified does not depend on how busy two cores are under the full suite.
    try Self.setAppleRequestTimeout(ms: 60_000, in: workers.config)
    let sim = workers.sim
    let worker = try await workers.start().process
    defer { worker.terminate() }
    let storage = try SQLiteWorkerStorage(path: workers.database, nowMs: 1, create: false)
    let inbox = try SQLiteEntitlementStorage(path: workers.database, nowMs: 1)
    var receipts: [String] = []
    for _ in 0..<40 {
      receipts.append(
        try await sim.purchase(.init(productId: Stack.premium, bundleId: Stack.bundleId, environment: "Sandbox"))
          .signedTransaction)
    }
    // A hung call gets no answer until the worker gives up on it (its requestTimeoutMs).
    try sim.addFault(FaultRule(target: "apple.api", mode: .stall, count: nil, delayMs: 120_000, fraction: 0.1))
    for (user, receipt) in receipts.enumerated() {
      _ = try await inbox.submitPurchase(
        PurchaseSubmission(userId: "user-\(user)", store: .appStore, receipt: receipt), nowMs: SystemClock.nowMs())
    }

    // Until the first hung call times out (60 s after it began, at the earliest), every chain
    // whose calls were answered is verified: none waited behind a hung call.
    var stalls = 0
    var verified = 0
    var unblocked = false
    let deadline = ContinuousClock.now + .seconds(90)
    while !unblocked && ContinuousClock.now < deadline {
      let applied = sim.appliedFaults.filter { $0.mode == .stall }
      stalls = applied.count
      verified = try await storage.inboxCounts()["verified", default: 0]
      if let first = applied.first?.realTimeMs, SystemClock.nowMs() > first + 55_000 { break }
      unblocked = stalls > 0 && verified >= receipts.count - stalls
      if !unblocked { try await Task.sleep(for: .milliseconds(100)) }
    }
    #expect(unblocked, "\(verified) of \(receipts.count) verified with \(stalls) calls hanging")
    #expect(stalls < receipts.count / 2)
    worker.terminate()
    _ = worker.finish()
    await workers.remove()
  }

  @Test(
    "more calls hang than the loop has places: the items waiting on them give their places back, the rest are verified")
  func hungCallsNeverFillTheLoop() async throws {
    let workers = try await WorkerProcesses.make(prefix: "tollgate-hol-places")
    // One store call permit: the loop holds 16 items. Hung calls time out after 150 s: with one
    // permit the answered chains took up to 54 s under the full suite, near a minute's window.
    try Self.setAppleRequestTimeout(ms: 150_000, storeConcurrency: 1, in: workers.config)
    let sim = workers.sim
    let worker = try await workers.start().process
    defer { worker.terminate() }
    let storage = try SQLiteWorkerStorage(path: workers.database, nowMs: 1, create: false)
    let inbox = try SQLiteEntitlementStorage(path: workers.database, nowMs: 1)
    var receipts: [String] = []
    for _ in 0..<60 {
      receipts.append(
        try await sim.purchase(.init(productId: Stack.premium, bundleId: Stack.bundleId, environment: "Sandbox"))
          .signedTransaction)
    }
    // Every second call hangs: about 30 items wait on a hung call at once, more than 16.
    try sim.addFault(FaultRule(target: "apple.api", mode: .stall, count: nil, delayMs: 300_000, fraction: 0.5))
    for (user, receipt) in receipts.enumerated() {
      _ = try await inbox.submitPurchase(
        PurchaseSubmission(userId: "user-\(user)", store: .appStore, receipt: receipt), nowMs: SystemClock.nowMs())
    }
    // Before the first hung call times out, every chain whose calls were answered is verified.
    var stalls = 0
    var verified = 0
    var unblocked = false
    let deadline = ContinuousClock.now + .seconds(180)
    while !unblocked && ContinuousClock.now < deadline {
      let applied = sim.appliedFaults.filter { $0.mode == .stall }
      stalls = applied.count
      verified = try await storage.inboxCounts()["verified", default: 0]
      if let first = applied.first?.realTimeMs, SystemClock.nowMs() > first + 145_000 { break }
      unblocked = stalls > 16 && verified >= receipts.count - stalls
      if !unblocked { try await Task.sleep(for: .milliseconds(100)) }
    }
    #expect(unblocked, "\(verified) of \(receipts.count) verified with \(stalls) calls hanging")
    sim.clearFaults()
    worker.terminate()
    _ = worker.finish()
    await workers.remove()
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
