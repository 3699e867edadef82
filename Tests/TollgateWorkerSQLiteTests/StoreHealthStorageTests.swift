import Testing
import TollgateCore
import TollgateSQLite
import TollgateTesting
import TollgateWorkerSQLite

@testable import TollgateWorker

/// Store health on SQLite (issue 26): two workers' `StoreHealth` over two handles on one database
/// file, as two worker processes hold them; the records are not fenced by the worker lease.
extension SQLiteWorkerStorageTests {
  @Test("two workers on one SQLite file: B sees A's outage after one refresh, and one of them ends it")
  func storeHealthAcrossProcesses() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("db.sqlite")
    let a = StoreHealth(storage: try SQLiteWorkerStorage(path: path, nowMs: 1))
    let b = StoreHealth(storage: try SQLiteWorkerStorage(path: path, nowMs: 1))
    await a.refresh()
    await b.refresh()
    #expect(a.failingStores.isEmpty && b.failingStores.isEmpty)

    await a.failed(.googlePlay, atMs: 1_000)
    #expect(a.failingStores == [.googlePlay])
    #expect(b.failingStores.isEmpty, "not before B refreshes")
    await b.refresh()
    #expect(b.outages == [.googlePlay: 1_000])

    for round in Int64(0)..<10 {
      async let endedByA = a.succeeded(.googlePlay, nowMs: 2_000 + round)
      async let endedByB = b.succeeded(.googlePlay, nowMs: 2_000 + round)
      let ended = await [endedByA, endedByB]
      #expect(ended.filter { $0 }.count == 1, "round \(round): exactly one worker ended the outage: \(ended)")
      await b.failed(.googlePlay, atMs: 3_000 + round)
      await a.refresh()
      #expect(a.outages == [.googlePlay: 3_000 + round])
    }
  }

  @Test("store health is recorded by a worker that lost the worker lease (an observation, not fenced)")
  func storeHealthNotFenced() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("db.sqlite")
    let first = try SQLiteWorkerStorage(path: path, nowMs: 1)
    let second = try SQLiteWorkerStorage(path: path, nowMs: 1)
    #expect(try await first.takeWorkerLease(WorkerStorageConformance.holder("a", heartbeat: 10), replacing: nil))
    #expect(try await second.takeWorkerLease(WorkerStorageConformance.holder("b", heartbeat: 30), replacing: "a"))
    try await first.recordStoreFailure(.amazon, atMs: 40)
    #expect(try await second.storeOutages() == [.amazon: 40])
    #expect(try await first.recordStoreSuccess(.amazon, nowMs: 50))
    #expect(try await second.storeOutages().isEmpty)
  }

  @Test("a store-health row of a store this version does not know is left out")
  func unknownStoreLeftOut() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("db.sqlite")
    let storage = try SQLiteWorkerStorage(path: path, nowMs: 1)
    try await storage.recordStoreFailure(.appStore, atMs: 5)
    let editor = try Connection(path: path)
    try editor.execute(
      "INSERT INTO store_health (store, failing_since_ms, last_failure_at_ms) VALUES ('microsoft_store', 1, 1)")
    #expect(try await storage.storeOutages() == [.appStore: 5])
  }
}
