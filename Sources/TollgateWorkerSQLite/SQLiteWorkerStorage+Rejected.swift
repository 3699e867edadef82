import TollgateCore
import TollgateStorage
import TollgateWorker

extension SQLiteWorkerStorage {
  /// The user's rejected submissions, newest first (finished inbox items of kind `purchase`).
  public func rejectedSubmissions(userId: String, limit: Int) async throws -> [RejectedSubmission] {
    try await writer.read { db in
      try db.prepare(
        """
        SELECT store, product_id, received_at_ms, completed_at_ms, outcome FROM inbox
        WHERE kind = 'purchase' AND user_id = ? AND status = 'rejected' ORDER BY id DESC LIMIT ?
        """
      ).rows([.text(userId), .integer(Int64(limit))]) { row in
        RejectedSubmission(
          store: row.string(at: 0), productId: row.optionalString(at: 1), receivedAtMs: row.int64(at: 2),
          rejectedAtMs: row.optionalInt64(at: 3), reason: row.optionalString(at: 4) ?? "")
      }
    }
  }
}
