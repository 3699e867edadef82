import Foundation
import StoreSimulator
import Testing
import TollgateCore
import TollgateSQLite
import TollgateStorage
import TollgateTesting
import TollgateWorker
import TollgateWorkerSQLite

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 24: a worker frozen past its lease (SIGSTOP, a VM stall) is taken over; when it resumes,
/// it writes nothing and steps down (exits with an error naming the lease), and never crashes.
/// Real `tollgate worker` processes on one SQLite file.
@Suite("A paused worker", .serialized)
struct WorkerPauseEndToEndTests {
  @Test("paused past its lease with items in flight, taken over by another worker, resumed: it writes nothing")
  func pausedWorkerWritesNothing() async throws {
    let workers = try await WorkerProcesses.make(prefix: "tollgate-pause")
    let sim = workers.sim
    let first = try await workers.start().process
    defer { Self.stop(first) }
    let worker = try SQLiteWorkerStorage(path: workers.database, nowMs: 1, create: false)
    let inbox = try SQLiteEntitlementStorage(path: workers.database, nowMs: 1)
    // Apple answers slowly: the first worker is asking the store when it is paused.
    try sim.addFault(FaultRule(target: "apple.api", mode: .slow, count: nil, delayMs: 2_000))
    for user in 0..<6 {
      let purchase = try await sim.purchase(
        .init(productId: Stack.premium, bundleId: Stack.bundleId, environment: "Sandbox"))
      _ = try await inbox.submitPurchase(
        PurchaseSubmission(userId: "user-\(user)", store: .appStore, receipt: purchase.signedTransaction),
        nowMs: SystemClock.nowMs())
    }
    let claimed = try await eventually { try await worker.inboxCounts()["processing", default: 0] > 0 }
    #expect(claimed != nil, "the first worker never claimed the submissions")
    try await Self.pause(first, database: workers.database)

    // Its heartbeat goes stale (15 s); another worker then takes over and does the work.
    let second = try await startWhenLeaseIsFree(workers)
    defer { second.terminate() }
    let done = try await eventually(timeout: .seconds(60)) {
      try await worker.inboxCounts() == ["verified": 6]
    }
    let counts = try await worker.inboxCounts()
    #expect(done != nil, "the second worker did not finish the submissions: \(counts)")
    try await Task.sleep(for: .milliseconds(500))
    let before = try Self.snapshot(workers.database)

    // The first one resumes, with the store's answers to its calls waiting for it.
    kill(first.process.processIdentifier, SIGCONT)
    let exit = await Self.waitForExit(first, timeout: .seconds(30))
    #expect(exit.signalled == false, "the resumed worker crashed: \(exit.stderr)")
    #expect(exit.status != 0)
    #expect(exit.stderr.contains("lease"), "\(exit.stderr)")
    try await Task.sleep(for: .milliseconds(300))
    #expect(try Self.snapshot(workers.database) == before, "the resumed worker wrote after losing its lease")
    #expect(try await worker.workerLease()?.pid == second.process.processIdentifier)
    second.terminate()
    _ = second.finish()
    await workers.remove()
  }

  /// The resumed worker crashed (SIGILL in `NIOAsyncWriter`'s deinit) in 5 of 12 trials: the lease
  /// error cancelled its HTTP listeners while connections queued during the pause were being
  /// accepted. Each trial here pauses a worker, takes its lease over, queues connections on both
  /// its listeners, and resumes it.
  @Test("resumed after a takeover with connections queued on its listeners, a worker steps down without crashing")
  func resumedWorkerNeverCrashes() async throws {
    let workers = try await WorkerProcesses.make(prefix: "tollgate-resume")
    let lease = try SQLiteWorkerStorage(path: workers.database, nowMs: 1)
    for trial in 0..<12 {
      let (worker, port, adminPort) = try await workers.start()
      defer { Self.stop(worker) }
      let holder = try #require(try await lease.workerLease())
      try await Self.pause(worker, database: workers.database)
      let now = SystemClock.nowMs()
      let other = WorkerLeaseHolder(
        ownerId: "other-\(trial)", host: "worker-b.internal", pid: 7, processScope: "elsewhere", acquiredAtMs: now,
        heartbeatAtMs: now)
      #expect(try await lease.takeWorkerLease(other, replacing: holder.ownerId))
      // Stores post notifications and a prober asks /health while the worker is frozen.
      let request = "POST /notifications/apple/v2 HTTP/1.1\r\nHost: w\r\nContent-Length: 2\r\n\r\n{}"
      let health = "GET /health HTTP/1.1\r\nHost: w\r\n\r\n"
      let queued =
        (0..<24).map { _ in Self.connect(port: port, sending: request) }
        + (0..<8).map { _ in Self.connect(port: adminPort, sending: health) }
      // Frozen past its next heartbeat: when it resumes, it learns at once that its lease is gone,
      // while it accepts what queued up.
      try await Task.sleep(for: .milliseconds(2_500))
      kill(worker.process.processIdentifier, SIGCONT)
      let exit = await Self.waitForExit(worker, timeout: .seconds(30))
      for socket in queued where socket >= 0 { close(socket) }
      #expect(exit.signalled == false, "trial \(trial): the resumed worker crashed: \(exit.stderr.suffix(2_000))")
      #expect(exit.stderr.contains("lease"), "trial \(trial): \(exit.stderr.suffix(2_000))")
      try await lease.releaseWorkerLease(ownerId: other.ownerId)
      if exit.signalled { break }
    }
    await workers.remove()
  }

  /// Stops `worker` (SIGSTOP) at a moment it holds no write transaction: a process stopped inside
  /// one keeps SQLite's write lock, and nobody could take its lease over until it resumes.
  static func pause(_ worker: ChildProcess, database: String) async throws {
    let pid = worker.process.processIdentifier
    let probe = try Connection(path: database, options: Connection.Options(create: false, busyTimeoutMs: 20))
    for _ in 0..<200 {
      kill(pid, SIGSTOP)
      await waitUntilStopped(pid)
      do {
        try probe.execute("BEGIN IMMEDIATE")
        try probe.execute("ROLLBACK")
        return
      } catch {
        kill(pid, SIGCONT)
        try await Task.sleep(for: .milliseconds(Int.random(in: 5...40)))
      }
    }
    Issue.record("the worker was always inside a write transaction")
  }

  /// Waits until the kernel shows `pid` stopped (state T in /proc), at most a second.
  static func waitUntilStopped(_ pid: Int32) async {
    for _ in 0..<100 {
      let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
      // The state follows the command name in parentheses.
      if let close = stat.lastIndex(of: ")"), stat[close...].dropFirst(2).first == "T" { return }
      try? await Task.sleep(for: .milliseconds(10))
    }
  }

  /// Resumes a worker a failed test left stopped, and stops it.
  static func stop(_ worker: ChildProcess) {
    guard worker.process.isRunning else { return }
    kill(worker.process.processIdentifier, SIGCONT)
    worker.terminate()
  }

  /// Starts a worker as soon as the lease is free to take (the paused holder's heartbeat is stale).
  private func startWhenLeaseIsFree(_ workers: WorkerProcesses) async throws -> ChildProcess {
    let deadline = ContinuousClock.now + .seconds(40)
    while true {
      do {
        return try await workers.start().process
      } catch let refused as WorkerDidNotStart
        where refused.stderr.contains("another worker is running") && ContinuousClock.now < deadline
      {
        try await Task.sleep(for: .seconds(1))
      }
    }
  }

  /// What a worker's writes change: the change feed, events, the inbox and the subscriptions.
  static func snapshot(_ path: String) throws -> [String] {
    let db = try Connection(path: path, options: Connection.Options(readOnly: true))
    var rows: [String] = []
    for query in [
      "SELECT COUNT(*) || ' ' || COALESCE(MAX(seq), 0) FROM change_feed",
      "SELECT COUNT(*) || ' events' FROM events",
      "SELECT id || ' ' || status || ' ' || COALESCE(outcome, '') || ' ' || COALESCE(completed_at_ms, 0) || ' '"
        + " || attempts FROM inbox ORDER BY id",
      "SELECT store_subscription_id || ' ' || updated_at_ms || ' ' || COALESCE(next_check_at_ms, 0) || ' '"
        + " || failures FROM subscriptions ORDER BY id",
    ] {
      rows += try db.prepare(query).rows([]) { $0.string(at: 0) }
    }
    return rows
  }

  /// Waits for a child to exit (off the cooperative pool), killing it after `timeout`.
  static func waitForExit(_ child: ChildProcess, timeout: Duration) async -> (
    status: Int32, signalled: Bool, stderr: String
  ) {
    let deadline = ContinuousClock.now + timeout
    while child.process.isRunning && ContinuousClock.now < deadline {
      try? await Task.sleep(for: .milliseconds(100))
    }
    if child.process.isRunning { kill(child.process.processIdentifier, SIGKILL) }
    let result = await withCheckedContinuation { continuation in
      DispatchQueue.global().async { continuation.resume(returning: child.finish()) }
    }
    let signalled = child.process.terminationReason == .uncaughtSignal
    return (result.status, signalled, result.stderr)
  }

  /// A TCP connection to the worker on loopback that has sent `request`: accepted by the kernel
  /// into the listener's backlog even while the worker is stopped. -1 if it could not connect.
  static func connect(port: Int, sending request: String) -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return -1 }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      close(fd)
      return -1
    }
    _ = Array(request.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    return fd
  }
}
