import Testing
import TollgateStorage
import TollgateTesting
import TollgateWorker
import TollgateWorkerSQLite

extension SQLiteWorkerStorageTests {
  func holder(_ owner: String, heartbeat: Int64) -> WorkerLeaseHolder {
    WorkerLeaseHolder(
      ownerId: owner, host: "host-\(owner)", pid: 42, processScope: "", acquiredAtMs: heartbeat,
      heartbeatAtMs: heartbeat)
  }

  @Test("the worker lease is taken only from the holder it was read from, renewed and released only by its owner")
  func workerLeaseRow() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let storage = try SQLiteWorkerStorage(path: dir.file("db.sqlite"), nowMs: 1)
    #expect(try await storage.workerLease() == nil)
    #expect(try await storage.takeWorkerLease(holder("a", heartbeat: 10), replacing: nil))
    #expect(try await storage.workerLease()?.ownerId == "a")
    // Another worker that read "nobody" (or a stale holder) too late gets nothing.
    #expect(!(try await storage.takeWorkerLease(holder("b", heartbeat: 11), replacing: nil)))
    #expect(!(try await storage.takeWorkerLease(holder("b", heartbeat: 11), replacing: "x")))
    #expect(try await storage.renewWorkerLease(ownerId: "a", heartbeatAtMs: 20))
    #expect(try await storage.workerLease()?.heartbeatAtMs == 20)
    // A takeover replaces exactly the holder it saw; the old owner then finds its lease lost.
    #expect(try await storage.takeWorkerLease(holder("b", heartbeat: 30), replacing: "a"))
    #expect(!(try await storage.renewWorkerLease(ownerId: "a", heartbeatAtMs: 31)))
    try await storage.releaseWorkerLease(ownerId: "a")
    #expect(try await storage.workerLease()?.ownerId == "b")
    try await storage.releaseWorkerLease(ownerId: "b")
    #expect(try await storage.workerLease() == nil)
  }
}
