import Synchronization
import Testing
import TollgateCore
import TollgateSQLite
import TollgateStorage
import TollgateTesting

@Suite("SQLite entitlement storage")
struct SQLiteEntitlementStorageTests {
  @Test("replacing a user's entitlements writes the rows and one change-feed entry, atomically")
  func replaceAppendsFeed() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let storage = try SQLiteEntitlementStorage(path: dir.file("db.sqlite"), nowMs: 1)
    let a = EntitlementRecord.sample(userId: "alice", expiresAtMs: 5_000)
    let b = EntitlementRecord.sample(userId: "alice", entitlement: "pro", expiresAtMs: 6_000)
    let seq1 = try await storage.replaceEntitlements(userId: "alice", with: [a, b], reason: "purchase", nowMs: 10)
    let seq2 = try await storage.replaceEntitlements(
      userId: "bob", with: [.sample(userId: "bob", expiresAtMs: 7_000)], reason: "purchase", nowMs: 11)
    let seq3 = try await storage.replaceEntitlements(userId: "alice", with: [b], reason: "refund", nowMs: 12)
    #expect(seq1 < seq2 && seq2 < seq3)

    let snapshot = try await storage.loadSnapshot()
    #expect(snapshot.headSeq == seq3)
    #expect(Set(snapshot.records) == [b, .sample(userId: "bob", expiresAtMs: 7_000)])

    let changes = try await storage.changes(after: seq1, limit: 10)
    #expect(changes.map(\.userId) == ["bob", "alice"])
    #expect(changes.map(\.reason) == ["purchase", "refund"])
    #expect(try await storage.changes(after: seq1, limit: 1).count == 1)
    #expect(try await storage.entitlements(forUsers: ["alice", "nobody"]) == ["alice": [b]])

    // A Google purchase's chain of replaced tokens is stored with its record.
    var upgraded = EntitlementRecord.sample(userId: "carol", expiresAtMs: 8_000)
    upgraded.replaces = ["tok-b.AO-J1", "tok-a_x"]
    try await storage.replaceEntitlements(userId: "carol", with: [upgraded], reason: "purchase", nowMs: 13)
    #expect(try await storage.entitlements(forUsers: ["carol"]) == ["carol": [upgraded]])
  }

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

  @Test("a submitted purchase is stored durably and read back pending")
  func submission() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("db.sqlite")
    let storage = try SQLiteEntitlementStorage(path: path, nowMs: 1)
    let submission = PurchaseSubmission(userId: "alice", store: .appStore, receipt: "2000000123", productId: "monthly")
    let id = try await storage.submitPurchase(submission, nowMs: 50)
    // A second process (another connection) sees it.
    let other = try SQLiteEntitlementStorage(path: path, nowMs: 2)
    let record = try #require(try await other.submission(id: id))
    #expect(record.submission == submission)
    #expect(record.state == .pending)
    #expect(record.receivedAtMs == 50)
    #expect(try await other.submission(id: id + 100) == nil)
  }

  @Test("a record round-trips every field")
  func roundTrip() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let storage = try SQLiteEntitlementStorage(path: dir.file("db.sqlite"), nowMs: 1)
    for state in SubscriptionState.allCases {
      let record = EntitlementRecord(
        userId: "u-\(state.rawValue)", entitlement: "e", source: "google_play:tok", store: .googlePlay,
        productId: "p", environment: .sandbox, state: state, willRenew: false, expiresAtMs: -5,
        accessEndsAtMs: Int64.max, verifiedAtMs: 123)
      try await storage.replaceEntitlements(userId: record.userId, with: [record], reason: "t", nowMs: 1)
      #expect(try await storage.entitlements(forUsers: [record.userId])[record.userId] == [record])
    }
  }
}
