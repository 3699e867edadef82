import TollgateCore
import TollgateSQLite
import TollgateWorker

extension SQLiteWorkerStorage {
  // MARK: Store-call budgets

  /// One write transaction (SQLite's single writer makes it atomic across handles): the store's
  /// row moved to the newer of its window and `windowStartMs`, then up to `wanted` of what is
  /// left of `limit` granted.
  public func reserveStoreCalls(_ store: Store, windowStartMs: Int64, wanted: Int, limit: Int) async throws -> Int {
    try await writer.write { db in
      let row = try db.prepare("SELECT window_start_ms, used FROM store_call_budgets WHERE store = ?")
        .rows([.text(store.rawValue)]) { ($0.int64(at: 0), $0.int64(at: 1)) }.first
      let budget = StoreCallWindow(stored: row, windowStartMs: windowStartMs).granting(wanted, limit: limit)
      try db.execute(
        """
        INSERT INTO store_call_budgets (store, window_start_ms, used) VALUES (?, ?, ?)
        ON CONFLICT(store) DO UPDATE SET window_start_ms = excluded.window_start_ms, used = excluded.used
        """, [.text(store.rawValue), .integer(budget.window.startMs), .integer(budget.window.used)])
      return budget.granted
    }
  }
}
