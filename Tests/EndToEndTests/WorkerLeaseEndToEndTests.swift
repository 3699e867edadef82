import Foundation
import Testing
import TollgateStorage
import TollgateTesting
import TollgateWorker
import TollgateWorkerSQLite

#if canImport(Glibc)
  import Glibc
#endif

/// One worker per database, with real `tollgate worker` processes on one SQLite file.
@Suite("One worker per database", .serialized)
struct WorkerLeaseEndToEndTests {
  @Test("a second worker refuses to start, naming the holder; after a graceful stop, or a kill -9, a new one starts")
  func secondWorkerRefused() async throws {
    let workers = try await WorkerProcesses.make()
    let first = try await workers.start().process
    let storage = try SQLiteWorkerStorage(path: workers.database, nowMs: 1, create: false)
    let holder = try #require(try await storage.workerLease())
    #expect(holder.pid == first.process.processIdentifier)

    let second = try workers.launch().finish()
    #expect(second.status != 0)
    #expect(second.stderr.contains("another worker is running on this database: pid \(holder.pid)"), "\(second.stderr)")
    #expect(second.stderr.contains("heartbeat was last seen"))
    #expect(try await storage.workerLease()?.ownerId == holder.ownerId, "the refused worker left the lease alone")

    // A graceful stop gives the lease up: the next worker starts at once.
    first.process.terminate()
    #expect(first.finish().status == 0)
    #expect(try await storage.workerLease() == nil)
    let third = try await workers.start().process

    // kill -9 leaves the lease behind; a worker on this machine sees that its process is gone.
    kill(third.process.processIdentifier, SIGKILL)
    third.process.waitUntilExit()
    #expect(try await storage.workerLease()?.pid == third.process.processIdentifier)
    let fourth = try await workers.start().process
    #expect(try await storage.workerLease()?.pid == fourth.process.processIdentifier)
    fourth.terminate()
    _ = fourth.finish()
    await workers.remove()
  }

  @Test("a holder on another machine: refused while its heartbeat is fresh, taken over once it is stale")
  func staleHeartbeat() async throws {
    let workers = try await WorkerProcesses.make()
    let storage = try SQLiteWorkerStorage(path: workers.database, nowMs: 1)
    let now = Int64(Date().timeIntervalSince1970 * 1_000)
    let remote = WorkerLeaseHolder(
      ownerId: "remote", host: "worker-b.internal", pid: 7, processScope: "another-boot pid:[1]", acquiredAtMs: now,
      heartbeatAtMs: now)
    #expect(try await storage.takeWorkerLease(remote, replacing: nil))

    let refused = try workers.launch().finish()
    #expect(refused.status != 0)
    #expect(refused.stderr.contains("pid 7 on host worker-b.internal"), "\(refused.stderr)")

    // Its heartbeat stops (the machine was lost): a minute later it is stale.
    #expect(try await storage.renewWorkerLease(ownerId: "remote", heartbeatAtMs: now - 60_000))
    let worker = try await workers.start().process
    let taken = try #require(try await storage.workerLease())
    #expect(taken.pid == worker.process.processIdentifier)
    // It renews its heartbeat while it runs.
    let renewed = try await eventually(timeout: .seconds(6)) {
      try await storage.workerLease()?.heartbeatAtMs ?? 0 > taken.heartbeatAtMs
    }
    #expect(renewed != nil)
    // And the remote holder, should it come back, finds its lease lost.
    #expect(!(try await storage.renewWorkerLease(ownerId: "remote", heartbeatAtMs: now)))
    worker.terminate()
    _ = worker.finish()
    await workers.remove()
  }

  @Test(
    "with worker.exclusive false a second worker starts beside the first; each singleton job runs on one of them and moves when it stops"
  )
  func sharedDatabase() async throws {
    let workers = try await WorkerProcesses.make(workerSettings: ["exclusive": false])
    // A worker that runs alone (worker.exclusive true) and one that shares never mix.
    var alone =
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: workers.config)))
      as! [String: Any]
    alone["worker"] = (alone["worker"] as! [String: Any]).merging(["exclusive": true]) { $1 }
    let aloneConfig = workers.dir.file("alone.json")
    try JSONSerialization.data(withJSONObject: alone).write(to: URL(fileURLWithPath: aloneConfig))
    let exclusive = try ChildProcess(
      ["worker", "--config", aloneConfig, "--log-level", "warning", "--create"], environment: workers.environment)
    #expect(await exclusive.waitForLine(containing: "notifications on") != nil)
    let refused = try workers.launch().finish()
    #expect(refused.status != 0)
    #expect(refused.stderr.contains("worker.exclusive"), "\(refused.stderr)")
    exclusive.terminate()
    #expect(exclusive.finish().status == 0)

    let first = try await workers.start()
    let second = try await workers.start()
    let storage = try SQLiteWorkerStorage(path: workers.database, nowMs: 1, create: false)
    #expect(try await storage.workerLease() == nil, "neither takes the worker lease")
    let everyJob: Set = [JobLease.housekeeping, JobLease.sweep(.appStore)]
    // Each job runs on exactly one of them.
    var split: [[String]] = []
    let settled = try await eventually(timeout: .seconds(8)) {
      split = [try await Self.jobs(first.adminPort), try await Self.jobs(second.adminPort)]
      return Set(split.joined()) == everyJob && split.joined().count == everyJob.count
    }
    #expect(settled != nil, "\(split)")
    // The holder of housekeeping stops (releasing its leases): the other takes every job over.
    let (holder, other) = split[0].contains(JobLease.housekeeping) ? (first, second) : (second, first)
    holder.process.terminate()
    #expect(holder.process.finish().status == 0)
    let movedOver = try await eventually(timeout: .seconds(8)) { Set(try await Self.jobs(other.adminPort)) == everyJob }
    #expect(movedOver != nil)
    other.process.terminate()
    #expect(other.process.finish().status == 0)
    await workers.remove()
  }

  /// The job leases a worker's `/health` says it holds; it reports it shares the database.
  static func jobs(_ adminPort: Int) async throws -> [String] {
    let health = try await httpRequest("GET", port: adminPort, path: "/health")
    let json = try JSONSerialization.jsonObject(with: Data(health.body.utf8)) as? [String: Any]
    let leases = try #require(json?["leases"] as? [String: Any], "\(health.body)")
    #expect(leases["exclusive"] as? Bool == false)
    return leases["jobs"] as? [String] ?? []
  }
}
