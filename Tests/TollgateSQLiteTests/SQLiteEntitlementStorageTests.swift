import Synchronization
import Testing
import TollgateCore
import TollgateSQLite
import TollgateStorage
import TollgateTesting

@Suite("SQLite entitlement storage")
struct SQLiteEntitlementStorageTests {
  @Test("the change probe says yes first, then only after a commit by this storage or another connection")
  func changeProbe() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let storage = try SQLiteEntitlementStorage(path: dir.file("db.sqlite"), nowMs: 1)
    let probe = try SQLiteChangeProbe(path: dir.file("db.sqlite"))
    #expect(try probe.mayHaveChanged())
    #expect(try !probe.mayHaveChanged())
    #expect(try !probe.mayHaveChanged())
    try await storage.replaceEntitlements(
      userId: "a", with: [.sample(userId: "a", expiresAtMs: 5)], reason: "r", nowMs: 2)
    #expect(try probe.mayHaveChanged())
    #expect(try !probe.mayHaveChanged())
    // Another writer of the same file (as another process would be).
    let other = try SQLiteEntitlementStorage(path: dir.file("db.sqlite"), nowMs: 1)
    try await other.replaceEntitlements(userId: "b", with: [], reason: "r", nowMs: 3)
    #expect(try probe.mayHaveChanged())
    #expect(try !probe.mayHaveChanged())
    // Reads change nothing.
    _ = try await storage.changes(after: 0, limit: 10)
    #expect(try !probe.mayHaveChanged())
    // Between looks the probe holds no read transaction: a checkpoint can empty the WAL.
    let checkpointer = try Connection(path: dir.file("db.sqlite"), options: .init(busyTimeoutMs: 0))
    let checkpoint = try checkpointer.prepare("PRAGMA wal_checkpoint(TRUNCATE)")
    #expect(try checkpoint.step())
    #expect(checkpoint.int64(at: 0) == 0, "a reader blocked the checkpoint")
  }

  @Test("its change signals: one at once, one after another connection commits, quiet looks while nothing is")
  func changeSignals() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let storage = try SQLiteEntitlementStorage(path: dir.file("db.sqlite"), nowMs: 1)
    let quiets = Mutex(0)
    let signalled = Mutex(0)
    let signals = storage.changeSignals(every: .milliseconds(2)) { quiets.withLock { $0 += 1 } }
    let follower = Task {
      for await _ in signals { signalled.withLock { $0 += 1 } }
    }
    defer { follower.cancel() }
    #expect(await eventually(timeout: .seconds(20)) { signalled.withLock { $0 } == 1 } != nil, "the first look signals")
    #expect(
      await eventually(timeout: .seconds(20)) { quiets.withLock { $0 } > 10 } != nil, "nothing committed: quiet looks")
    #expect(signalled.withLock { $0 } == 1)
    let other = try SQLiteEntitlementStorage(path: dir.file("db.sqlite"), nowMs: 1)
    try await other.replaceEntitlements(userId: "b", with: [], reason: "r", nowMs: 3)
    #expect(
      await eventually(timeout: .seconds(20)) { signalled.withLock { $0 } == 2 } != nil,
      "another connection's commit signals")
  }
}
