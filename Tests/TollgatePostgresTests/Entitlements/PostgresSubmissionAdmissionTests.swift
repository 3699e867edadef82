import PostgresNIO
import Testing
import TollgateCore
import TollgatePostgres
import TollgateStorage
import TollgateTesting

/// Pending submissions are counted per (caller, user), signed ones apart (issue 25), on PostgreSQL
/// as on SQLite (SubmissionAdmissionTests), and the bound holds across processes.
@Suite("PostgreSQL pending submissions per caller and user")
struct PostgresSubmissionAdmissionTests {
  static func submission(_ userId: String, caller: String?) -> PurchaseSubmission {
    var submission = PurchaseSubmission(userId: userId, store: .appStore, receipt: "2000000001")
    submission.caller = caller
    return submission
  }

  static let unsigned = SubmissionAdmission(signed: false, maximumPending: 3)
  static let signed = SubmissionAdmission(signed: true, maximumPending: 2)

  @Test("one caller's pending submissions for a user never hold back another caller's, nor a signed one")
  func countedPerCallerAndUser() async throws {
    try await PostgresEntitlements.withStorages { _, storages in
      let storage = storages[0]
      var ids: [Int64] = []
      for _ in 0..<3 {
        ids.append(
          try await storage.submitPurchase(
            Self.submission("victim", caller: "attacker"), nowMs: 2, admission: Self.unsigned))
      }
      await #expect(throws: TooManyPendingSubmissions(limit: 3, signed: false)) {
        try await storage.submitPurchase(
          Self.submission("victim", caller: "attacker"), nowMs: 3, admission: Self.unsigned)
      }
      _ = try await storage.submitPurchase(
        Self.submission("victim", caller: "backend"), nowMs: 3, admission: Self.unsigned)
      _ = try await storage.submitPurchase(
        Self.submission("other", caller: "attacker"), nowMs: 3, admission: Self.unsigned)
      _ = try await storage.submitPurchase(Self.submission("victim", caller: nil), nowMs: 3, admission: Self.unsigned)
      for _ in 0..<2 {
        _ = try await storage.submitPurchase(
          Self.submission("victim", caller: "attacker"), nowMs: 4, admission: Self.signed)
      }
      await #expect(throws: TooManyPendingSubmissions(limit: 2, signed: true)) {
        try await storage.submitPurchase(
          Self.submission("victim", caller: "attacker"), nowMs: 5, admission: Self.signed)
      }

      // Once the worker finishes one, the caller may submit another; a processing one still counts.
      _ = try await storage.database.query("UPDATE inbox SET status = 'rejected' WHERE id = \(ids[0])")
      _ = try await storage.database.query("UPDATE inbox SET status = 'processing' WHERE id = \(ids[1])")
      _ = try await storage.submitPurchase(
        Self.submission("victim", caller: "attacker"), nowMs: 6, admission: Self.unsigned)
      await #expect(throws: TooManyPendingSubmissions.self) {
        try await storage.submitPurchase(
          Self.submission("victim", caller: "attacker"), nowMs: 7, admission: Self.unsigned)
      }
      #expect(try await storage.submission(id: ids[2])?.submission.caller == "attacker")
    }
  }

  @Test(
    "twenty submissions at once from two pools (two processes) for one caller and user: exactly the bound is stored")
  func boundHoldsAcrossProcesses() async throws {
    try await PostgresEntitlements.withStorages(count: 2) { _, storages in
      let admission = SubmissionAdmission(signed: false, maximumPending: 3)
      let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
        for attempt in 0..<20 {
          let storage = storages[attempt % 2]
          group.addTask {
            do {
              _ = try await storage.submitPurchase(
                Self.submission("u", caller: "c"), nowMs: Int64(attempt), admission: admission)
              return true
            } catch is TooManyPendingSubmissions {
              return false
            }
          }
        }
        return try await group.reduce(into: [Bool]()) { $0.append($1) }
      }
      #expect(outcomes.filter { $0 }.count == 3)
      let stored = try await storages[0].database.query(
        "SELECT COUNT(*) FROM inbox WHERE caller = 'c' AND user_id = 'u' AND status = 'pending'")
      #expect(try stored.first?.decode(Int64.self) == 3)
    }
  }
}
