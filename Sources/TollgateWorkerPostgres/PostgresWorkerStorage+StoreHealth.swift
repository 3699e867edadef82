import PostgresNIO
import TollgateCore
import TollgateWorker

extension PostgresWorkerStorage {
  // MARK: Store health

  /// Not fenced by the worker lease (`WorkerStorage`, "Store health"): one statement, atomic, that
  /// starts the store's outage or keeps the earliest failure of the one under way.
  public func recordStoreFailure(_ store: Store, atMs: Int64) async throws {
    _ = try await database.query(
      """
      INSERT INTO store_health AS health (store, failing_since_ms, last_failure_at_ms)
      VALUES (\(store.rawValue), \(atMs), \(atMs))
      ON CONFLICT (store) DO UPDATE SET
        failing_since_ms = LEAST(health.failing_since_ms, excluded.failing_since_ms),
        last_failure_at_ms = GREATEST(health.last_failure_at_ms, excluded.last_failure_at_ms)
      """)
  }

  /// Deletes the store's outage row; true only when this delete removed it. Of several handles
  /// deleting at once, the others wait for the first one's commit and then find no row.
  public func recordStoreSuccess(_ store: Store, nowMs: Int64) async throws -> Bool {
    let rows = try await database.query("DELETE FROM store_health WHERE store = \(store.rawValue) RETURNING store")
    return !rows.isEmpty
  }

  /// A row of a store this version does not know (written by a newer one) is left out.
  public func storeOutages() async throws -> [Store: Int64] {
    var outages: [Store: Int64] = [:]
    for row in try await database.query("SELECT store, failing_since_ms FROM store_health") {
      let (name, since) = try row.decode((String, Int64).self)
      if let store = Store(rawValue: name) { outages[store] = since }
    }
    return outages
  }
}
