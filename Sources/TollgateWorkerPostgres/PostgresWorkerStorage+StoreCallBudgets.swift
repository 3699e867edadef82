import PostgresNIO
import TollgateCore
import TollgateWorker

extension PostgresWorkerStorage {
  // MARK: Store-call budgets

  /// One transaction: the store's row made to exist, locked (`FOR UPDATE`: workers reserving at
  /// once take turns), moved to the newer window and charged with what it grants
  /// (`StoreCallWindow`, the arithmetic every storage shares).
  public func reserveStoreCalls(_ store: Store, windowStartMs: Int64, wanted: Int, limit: Int) async throws -> Int {
    try await database.transaction { connection in
      try await connection.query(
        """
        INSERT INTO store_call_budgets (store, window_start_ms, used) VALUES (\(store.rawValue), \(windowStartMs), 0)
        ON CONFLICT (store) DO NOTHING
        """, logger: logger)
      let rows = try await connection.query(
        "SELECT window_start_ms, used FROM store_call_budgets WHERE store = \(store.rawValue) FOR UPDATE",
        logger: logger
      ).collect()
      let stored = try rows.first.map { row in
        let (startMs, used) = try row.decode((Int64, Int64).self)
        return (startMs: startMs, used: used)
      }
      let budget = StoreCallWindow(stored: stored, windowStartMs: windowStartMs).granting(wanted, limit: limit)
      try await connection.query(
        """
        UPDATE store_call_budgets SET window_start_ms = \(budget.window.startMs), used = \(budget.window.used)
        WHERE store = \(store.rawValue)
        """, logger: logger)
      return budget.granted
    }
  }
}
