import Foundation
import PostgresNIO
import Synchronization
import Testing
import TollgateCore
import TollgatePostgres
import TollgateStorage
import TollgateTesting

/// `PostgresEntitlementStorage` against the test server where it goes beyond what both databases
/// keep: what both keep (replacing records and the feed, every field's round trip, submissions,
/// admission) is in the storage conformance suite (`WorkerStorageConformance+Entitlements`,
/// `+Admission`).
@Suite("PostgreSQL entitlement storage")
struct PostgresEntitlementStorageTests {
  @Test("a batch is one transaction: one entry per element in order, the last of a user's elements wins, all or none")
  func batch() async throws {
    try await PostgresEntitlements.withStorages(count: 2) { _, storages in
      let (storage, other) = (storages[0], storages[1])
      let before = try await storage.replaceEntitlements(userId: "z", with: [], reason: "seed", nowMs: 1)
      let users = (0..<2_500).map { "user-\($0)" }
      var batch = users.map { (userId: $0, records: [EntitlementRecord.sample(userId: $0, expiresAtMs: 1)]) }
      batch.append((userId: "user-7", records: [.sample(userId: "user-7", expiresAtMs: 99)]))
      let last = try await storage.replaceEntitlements(batch: batch, reason: "import", nowMs: 2)
      #expect(last == before + Int64(batch.count))
      let entries = try await other.changes(after: before, limit: 10_000)
      #expect(entries.map(\.userId) == batch.map(\.userId))
      #expect(entries.map(\.seq) == Array((before + 1)...last))
      #expect(try await other.entitlements(forUsers: ["user-7"])["user-7"]?.map(\.expiresAtMs) == [99])
      #expect(try await other.loadSnapshot().records.count == users.count)
      #expect(try await storage.replaceEntitlements(batch: [], reason: "none", nowMs: 3) == 0)

      // Two records with one key: the batch fails and writes nothing.
      let clash = EntitlementRecord.sample(userId: "user-1", expiresAtMs: 5)
      await #expect(throws: (any Error).self) {
        try await storage.replaceEntitlements(
          batch: [(userId: "fresh", records: [.sample(userId: "fresh", expiresAtMs: 5)]), ("user-1", [clash, clash])],
          reason: "bad", nowMs: 4)
      }
      #expect(try await other.headSeq() == last)
      #expect(try await other.entitlements(forUsers: ["fresh"]) == [:])
    }
  }

  @Test(
    "the snapshot and its head are one moment while another pool writes: both users at one version, the head that version's"
  )
  func snapshotIsConsistent() async throws {
    try await PostgresEntitlements.withStorages(count: 2) { _, storages in
      let (reader, writer) = (storages[0], storages[1])
      let base = try await writer.replaceEntitlements(userId: "seed", with: [], reason: "seed", nowMs: 1)
      let rounds: Int64 = 150
      let finished = TaskCounter()
      let writing = Task {
        defer { finished.add() }
        for version in 1...rounds {
          // Two entries per transaction, numbered one after the other.
          try await writer.replaceEntitlements(
            batch: [
              (userId: "a", records: [.sample(userId: "a", expiresAtMs: version)]),
              (userId: "b", records: [.sample(userId: "b", expiresAtMs: version)]),
            ], reason: "t", nowMs: version)
        }
      }
      var looked = 0
      while true {
        let done = finished.count > 0
        let snapshot = try await reader.loadSnapshot()
        let versions = Set(snapshot.records.filter { $0.userId != "seed" }.map(\.expiresAtMs))
        #expect(versions.count <= 1, "a snapshot showed two versions: \(versions)")
        let version = versions.first ?? 0
        #expect(snapshot.headSeq == base + 2 * version, "records at version \(version), head \(snapshot.headSeq)")
        looked += 1
        if done {
          #expect(version == rounds)
          break
        }
      }
      try await writing.value
      #expect(looked > 1)
    }
  }

  @Test("the feed mark: this database's id, the head, the entry at a sequence; another id behind it is a problem")
  func feedMarkAndProblem() async throws {
    try await PostgresEntitlements.withStorages(count: 2) { _, storages in
      let (storage, other) = (storages[0], storages[1])
      let seq = try await other.replaceEntitlements(userId: "a", with: [], reason: "grant", nowMs: 7)
      let mark = try await storage.feedMark(at: seq)
      #expect(mark.databaseId == storage.database.databaseId)
      #expect(!mark.databaseId.isEmpty)
      #expect(mark.headSeq == seq)
      #expect(mark.entry == ChangeFeedEntry(seq: seq, userId: "a", reason: "grant", atMs: 7))
      #expect(try await storage.feedMark(at: seq + 5).entry == nil)
      #expect(try await storage.feedMark(at: 0) == FeedMark(databaseId: mark.databaseId, headSeq: seq, entry: nil))
      #expect(storage.problem() == nil)

      // Another database behind the same location (as a restore of another one would leave).
      _ = try await other.database.query("UPDATE database_meta SET database_id = 'another' WHERE id = 1")
      #expect(try await storage.feedMark(at: seq).databaseId == "another")
      let problem = try #require(storage.problem())
      #expect(problem.contains("not the one this process opened"))
      #expect(problem.contains(mark.databaseId) && problem.contains("another"))
      _ = try await other.database.query("UPDATE database_meta SET database_id = \(mark.databaseId) WHERE id = 1")
      _ = try await storage.feedMark(at: seq)
      #expect(storage.problem() == nil)
    }
  }

  @Test("a submitted purchase's inbox row: its caller, unsigned, due at once, no app id")
  func submissionRow() async throws {
    try await PostgresEntitlements.withStorages { _, storages in
      var submission = PurchaseSubmission(
        userId: "alice", store: .appStore, receipt: "2000000123", productId: "monthly")
      submission.caller = "backend"
      let id = try await storages[0].submitPurchase(submission, nowMs: 50)
      let columns = try await PostgresEntitlements.rows(
        storages[0], "SELECT caller, signed, next_attempt_at_ms, app_id FROM inbox WHERE id = \(id)")
      let (caller, signed, next, appId) = try #require(columns.first).decode((String, Int64, Int64, String?).self)
      #expect(caller == "backend" && signed == 0 && next == 50 && appId == nil)
    }
  }

  @Test("the saved access levels: none without a catalog, the defaults when it names none, its own otherwise")
  func savedAccessLevels() async throws {
    try await PostgresEntitlements.withStorages { _, storages in
      let storage = storages[0]
      #expect(try await storage.savedAccessLevels() == nil)
      _ = try await storage.database.query(
        "INSERT INTO catalog (id, catalog_json, saved_at_ms) VALUES (1, '{\"products\":[]}', 1)")
      #expect(try await storage.savedAccessLevels() == .defaults)
      let custom = AccessLevelPolicy(levels: [.gracePeriod: "read_only", .onHold: .full])
      let json = String(decoding: try JSONEncoder().encode(["accessLevels": custom]), as: UTF8.self)
      _ = try await storage.database.query("UPDATE catalog SET catalog_json = \(json) WHERE id = 1")
      #expect(try await storage.savedAccessLevels() == custom)
    }
  }

  @Test(
    "the writer in a caller's transaction: its records read back there, the feed lock held, nothing after a rollback")
  func writerInCallersTransaction() async throws {
    try await PostgresEntitlements.withStorages(count: 2) { _, storages in
      let (storage, other) = (storages[0], storages[1])
      let record = EntitlementRecord.sample(userId: "w", expiresAtMs: 9)
      let held = try await storage.database.transaction { connection in
        // No lockFeed first: the append takes the lock itself rather than hand out a number unordered.
        try await PostgresEntitlementWriter.replace(
          connection, userId: "w", records: [record], reason: "apply", nowMs: 3, logger: PostgresEntitlements.logger)
        #expect(
          try await PostgresEntitlementWriter.records(connection, userId: "w", logger: PostgresEntitlements.logger)
            == [record])
        let key = PostgresLocks.changeFeed
        return try await connection.query(
          """
          SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted
            AND classid::bigint = \(key >> 32) AND objid::bigint = \(key & 0xffff_ffff) AND objsubid = 1
          """, logger: PostgresEntitlements.logger
        ).collect().first?.decode(Int64.self)
      }
      #expect(held == 1)
      #expect(try await other.entitlements(forUsers: ["w"]) == ["w": [record]])

      struct Abandon: Error {}
      let head = try await other.headSeq()
      await #expect(throws: Abandon.self) {
        try await storage.database.transaction { connection in
          try await PostgresEntitlementWriter.lockFeed(connection, logger: PostgresEntitlements.logger)
          try await PostgresEntitlementWriter.replace(
            connection, userId: "w", records: [], reason: "apply", nowMs: 4, logger: PostgresEntitlements.logger)
          throw Abandon()
        }
      }
      #expect(try await other.headSeq() == head)
      #expect(try await other.entitlements(forUsers: ["w"]) == ["w": [record]])
    }
  }
}
