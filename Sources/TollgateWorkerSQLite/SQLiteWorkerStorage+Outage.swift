import TollgateCore
import TollgateStorage
import TollgateWorker

extension SQLiteWorkerStorage {
  /// After an outage of `store` ends: its pending inbox items that failed before and its postponed
  /// checks become due at `nowMs`, in one transaction; returns how many.
  public func expediteRetries(store: Store, routes: [String], nowMs: Int64) async throws -> Int {
    try await fencedWrite { db in
      let names = [store.rawValue] + routes
      let placeholders = names.map { _ in "?" }.joined(separator: ", ")
      try db.execute(
        """
        UPDATE inbox SET next_attempt_at_ms = ?
        WHERE status = 'pending' AND attempts > 0 AND next_attempt_at_ms > ? AND store IN (\(placeholders))
        """, [.integer(nowMs), .integer(nowMs)] + names.map { .text($0) })
      let items = db.changes
      // A check claimed now (`check_token` set) is being made: it stays its claimer's.
      try db.execute(
        """
        UPDATE subscriptions SET next_check_at_ms = ?
        WHERE store = ? AND failures > 0 AND next_check_at_ms > ? AND check_token IS NULL
        """, [.integer(nowMs), .text(store.rawValue), .integer(nowMs)])
      return items + db.changes
    }
  }
}
