import Foundation
import Testing
import TollgateCore
import TollgateStorage
import TollgateTesting

@testable import TollgateSQLite

/// Pending submissions are counted per (caller, user), signed ones apart (issue 25): on SQLite, the
/// migration that gives the submissions stored before it their caller. The counting itself is a
/// case of the storage conformance suite (`WorkerStorageConformance.admissionCountedPerCallerAndUser`),
/// run on every storage.
@Suite("Pending submissions per caller and user")
struct SubmissionAdmissionTests {
  static func submission(_ userId: String, caller: String?, receipt: String = "2000000001") -> PurchaseSubmission {
    var submission = PurchaseSubmission(userId: userId, store: .appStore, receipt: receipt)
    submission.caller = caller
    return submission
  }

  @Test("the migration gives the pending submissions stored before it their caller from their payload")
  func migrationBackfillsCallers() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("db.sqlite")
    // A database as the version before this step left it, with submissions pending and done.
    do {
      let db = try Connection(path: path)
      var before = Migrator()
      let steps: [(String, Migrator.Body)] = [
        ("v1-core", Schema.v1), ("v2-worker", Schema.v2), ("v3-webhooks", Schema.v3), ("v4-catalog", Schema.v4),
        ("v5-database-id", Schema.v5), ("v6-worker-lease", Schema.v6), ("v7-entitlement-reason", Schema.v7),
        ("v8-entitlement-replaces", Schema.v8), ("v9-store-user-id", Schema.v9),
        ("v10-inbox-pending-by-user", Schema.v10), ("v11-worker-lease-generation", Schema.v11),
        ("v12-webhook-parking", Schema.webhookParking), ("v13-event-details", Schema.eventDetails),
      ]
      for (identifier, body) in steps { before.register(identifier, body) }
      try before.migrate(db, nowMs: 1)
      let rows: [(PurchaseSubmission, String)] = [
        (Self.submission("victim", caller: "attacker"), "pending"),
        (Self.submission("victim", caller: "attacker"), "processing"),
        (Self.submission("victim", caller: "attacker"), "rejected"),
        (Self.submission("victim", caller: nil), "pending"),
      ]
      for (submission, status) in rows {
        try db.execute(
          """
          INSERT INTO inbox (kind, store, user_id, payload, received_at_ms, next_attempt_at_ms, status)
          VALUES ('purchase', 'app_store', ?, ?, 1, 1, ?)
          """, [.text(submission.userId), .blob(Array(try JSONEncoder().encode(submission))), .text(status)])
      }
    }
    let storage = try SQLiteEntitlementStorage(path: path, nowMs: 2)
    let applied = try await storage.reader.read { db in try Migrator.appliedIdentifiers(db) }
    #expect(applied.contains("v14-inbox-submission-caller"))
    let callers = try await storage.reader.read { db in
      try db.prepare("SELECT caller, status FROM inbox ORDER BY id").rows { "\($0.string(at: 0))/\($0.string(at: 1))" }
    }
    #expect(callers == ["attacker/pending", "attacker/processing", "/rejected", "/pending"])
    let indexes = try await storage.reader.read { db in
      try db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'inbox'").rows {
        $0.string(at: 0)
      }
    }
    #expect(indexes.contains("inbox_pending_by_caller"))
    #expect(!indexes.contains("inbox_pending_by_user"))

    // The two pending from before count against the caller's allowance for the user.
    let twoMore = SubmissionAdmission(signed: false, maximumPending: 3)
    _ = try await storage.submitPurchase(Self.submission("victim", caller: "attacker"), nowMs: 3, admission: twoMore)
    await #expect(throws: TooManyPendingSubmissions.self) {
      try await storage.submitPurchase(Self.submission("victim", caller: "attacker"), nowMs: 4, admission: twoMore)
    }
    _ = try await storage.submitPurchase(Self.submission("victim", caller: "backend"), nowMs: 4, admission: twoMore)
  }
}
