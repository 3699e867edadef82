import PostgresNIO
import TollgateCore
import TollgateStorage

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension PostgresEntitlementStorage {
  /// Stores a submission in the inbox, after counting its caller's pending submissions of its kind
  /// for its user when the admission has a bound. Race-free across processes: the transaction
  /// first takes a transaction-scoped advisory lock keyed on (caller, user)
  /// (`PostgresLocks.submissionAdmission` and a hash of both), and READ COMMITTED gives the count
  /// that follows a snapshot taken after the lock was granted, so it sees every submission a
  /// previous holder committed. Locking the pending rows (`FOR UPDATE`) would not do: a row that
  /// does not exist yet cannot be locked, and two transactions could both count n - 1. Different
  /// users (or callers) never wait for each other, short of a hash collision.
  public func submitPurchase(_ submission: PurchaseSubmission, nowMs: Int64, admission: SubmissionAdmission)
    async throws -> Int64
  {
    let payload = try JSONEncoder().encode(submission)
    let caller = submission.caller ?? ""  // '' on a server without callers, as on SQLite
    let signed: Int64 = admission.signed ? 1 : 0
    return try await otherCall {
      try await submit(submission, payload, caller: caller, signed: signed, admission, nowMs: nowMs)
    }
  }

  /// `submitPurchase`'s transaction.
  private func submit(
    _ submission: PurchaseSubmission, _ payload: Data, caller: String, signed: Int64, _ admission: SubmissionAdmission,
    nowMs: Int64
  ) async throws -> Int64 {
    try await database.transaction { connection in
      if admission.maximumPending < Int.max {
        // Only this caller's submissions for this user, of the same kind (issue 25).
        try await connection.query(
          """
          SELECT pg_advisory_xact_lock(\(PostgresLocks.submissionAdmission), hashtext(\(caller) || chr(31) || \(submission.userId)))
          """, logger: logger)
        let counted = try await connection.query(
          """
          SELECT COUNT(*) FROM inbox
          WHERE kind = 'purchase' AND caller = \(caller) AND user_id = \(submission.userId) AND signed = \(signed)
            AND status IN ('pending', 'processing')
          """, logger: logger
        ).collect()
        let pending = try counted.first?.decode(Int64.self) ?? 0
        guard pending < Int64(admission.maximumPending) else {
          throw TooManyPendingSubmissions(limit: admission.maximumPending, signed: admission.signed)
        }
      }
      let inserted = try await connection.query(
        """
        INSERT INTO inbox (
          kind, store, user_id, app_id, product_id, payload, received_at_ms, next_attempt_at_ms, caller, signed,
          request_id)
        VALUES ('purchase', \(submission.store.rawValue), \(submission.userId), \(submission.appId),
          \(submission.productId), \(payload), \(nowMs), \(nowMs), \(caller), \(signed), \(submission.requestId))
        RETURNING id
        """, logger: logger
      ).collect()
      guard let id = try inserted.first?.decode(Int64.self) else {
        throw PostgresStorageError.undecodable("inbox insert returned no id")
      }
      return id
    }
  }

  public func submission(id: Int64) async throws -> SubmissionRecord? {
    let rows = try await otherCall {
      try await database.query(
        "SELECT payload, status, received_at_ms, outcome FROM inbox WHERE id = \(id) AND kind = 'purchase'")
    }
    guard let row = rows.first else { return nil }
    let (payload, status, received, outcome) = try row.decode((Data, String, Int64, String?).self)
    let submission = try JSONDecoder().decode(PurchaseSubmission.self, from: payload)
    return SubmissionRecord(
      id: id, submission: submission, state: SubmissionState(rawValue: status) ?? .pending,
      receivedAtMs: received, outcome: outcome)
  }

  /// The `accessLevels` of the catalog row the worker saves at its start (only that member is read
  /// out of the JSON, by the server): small enough to read at every poll of the change feed.
  /// Nil when no worker saved a catalog; the defaults when the saved catalog names none.
  public func savedAccessLevels() async throws -> AccessLevelPolicy? {
    let rows = try await database.query(
      "SELECT NULLIF(catalog_json::jsonb -> 'accessLevels', 'null'::jsonb)::text FROM catalog WHERE id = 1")
    guard let row = rows.first else { return nil }
    guard let json = try row.decode(String?.self) else { return .defaults }
    return try JSONDecoder().decode(AccessLevelPolicy.self, from: Data(json.utf8))
  }
}
