import TollgateCore
import TollgateStorage

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension SQLiteEntitlementStorage {
  /// The inbox's `caller` column for a submission: its caller's name, or '' on a server without
  /// callers (every connection is one caller there).
  static func callerColumn(_ submission: PurchaseSubmission) -> String { submission.caller ?? "" }

  public func submitPurchase(_ submission: PurchaseSubmission, nowMs: Int64, admission: SubmissionAdmission)
    async throws -> Int64
  {
    let payload = Array(try JSONEncoder().encode(submission))
    let caller = Self.callerColumn(submission)
    let signed: Int64 = admission.signed ? 1 : 0
    return try await writer.write { db in
      if admission.maximumPending < Int.max {
        // Only this caller's submissions for this user, of the same kind (issue 25): another
        // caller's, or unsigned ones anyone can make up, never hold this one back.
        let pending = try db.prepare(
          """
          SELECT COUNT(*) FROM inbox
          WHERE kind = 'purchase' AND caller = ? AND user_id = ? AND signed = ? AND status IN ('pending', 'processing')
          """)
        try pending.bind([.text(caller), .text(submission.userId), .integer(signed)])
        _ = try pending.step()
        guard pending.int64(at: 0) < Int64(admission.maximumPending) else {
          throw TooManyPendingSubmissions(limit: admission.maximumPending, signed: admission.signed)
        }
      }
      try db.execute(
        """
        INSERT INTO inbox (
          kind, store, user_id, app_id, product_id, payload, received_at_ms, next_attempt_at_ms, caller, signed,
          request_id)
        VALUES ('purchase', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """,
        [
          .text(submission.store.rawValue), .text(submission.userId), DatabaseValue(submission.appId),
          DatabaseValue(submission.productId), .blob(payload), .integer(nowMs), .integer(nowMs), .text(caller),
          .integer(signed), DatabaseValue(submission.requestId),
        ])
      return db.lastInsertedRowId
    }
  }

  public func submission(id: Int64) async throws -> SubmissionRecord? {
    let row = try await reader.read { db -> (payload: [UInt8], status: String, received: Int64, outcome: String?)? in
      let statement = try db.prepare(
        "SELECT payload, status, received_at_ms, outcome FROM inbox WHERE id = ? AND kind = 'purchase'")
      try statement.bind([.integer(id)])
      guard try statement.step() else { return nil }
      return (statement.blob(at: 0), statement.string(at: 1), statement.int64(at: 2), statement.optionalString(at: 3))
    }
    guard let row else { return nil }
    let submission = try JSONDecoder().decode(PurchaseSubmission.self, from: Data(row.payload))
    return SubmissionRecord(
      id: id, submission: submission, state: SubmissionState(rawValue: row.status) ?? .pending,
      receivedAtMs: row.received, outcome: row.outcome)
  }
}
