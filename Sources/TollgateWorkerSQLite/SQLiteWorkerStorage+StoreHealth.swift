import TollgateCore
import TollgateSQLite
import TollgateWorker

extension SQLiteWorkerStorage {
  // MARK: Store health

  /// Not fenced by the worker lease (`WorkerStorage`, "Store health"): one statement, atomic, that
  /// starts the store's outage or keeps the earliest failure of the one under way.
  public func recordStoreFailure(_ store: Store, atMs: Int64) async throws {
    try await writer.write { db in
      try db.execute(
        """
        INSERT INTO store_health (store, failing_since_ms, last_failure_at_ms) VALUES (?, ?, ?)
        ON CONFLICT(store) DO UPDATE SET
          failing_since_ms = MIN(store_health.failing_since_ms, excluded.failing_since_ms),
          last_failure_at_ms = MAX(store_health.last_failure_at_ms, excluded.last_failure_at_ms)
        """, [.text(store.rawValue), .integer(atMs), .integer(atMs)])
    }
  }

  /// Deletes the store's outage row; true only when this delete removed it (of several handles,
  /// one finds the row).
  public func recordStoreSuccess(_ store: Store, nowMs: Int64) async throws -> Bool {
    try await writer.write { db in
      try db.execute("DELETE FROM store_health WHERE store = ?", [.text(store.rawValue)])
      return db.changes > 0
    }
  }

  /// A row of a store this version does not know (written by a newer one) is left out.
  public func storeOutages() async throws -> [Store: Int64] {
    let rows = try await writer.read { db in
      try db.prepare("SELECT store, failing_since_ms FROM store_health").rows([]) {
        ($0.string(at: 0), $0.int64(at: 1))
      }
    }
    var outages: [Store: Int64] = [:]
    for (name, since) in rows { if let store = Store(rawValue: name) { outages[store] = since } }
    return outages
  }
}
