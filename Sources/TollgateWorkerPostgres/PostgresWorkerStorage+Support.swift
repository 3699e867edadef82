import TollgateCore
import TollgateWorker

/// The support reads (`WorkerStorage`, "Support").
extension PostgresWorkerStorage {
  /// Every event of one chain, oldest first (id order: commit order).
  public func events(store: Store, purchaseId: String) async throws -> [WorkerEvent] {
    let rows = try await database.query(
      """
      SELECT \(unescaped: Self.eventColumns) FROM events
       WHERE store = \(store.rawValue) AND store_subscription_id = \(purchaseId) ORDER BY id
      """)
    return try rows.map { try Self.storedEvent($0).event }
  }

  public func purchases(matching identifier: String, store: Store?, kinds: PurchaseIdentifierKinds, limit: Int)
    async throws -> [PurchaseMatch]
  {
    throw SupportNotMigrated()
  }

  public func eraseUser(_ userId: String, dryRun: Bool, nowMs: Int64) async throws -> ErasureCounts {
    throw SupportNotMigrated()
  }
}

/// Until migration v21-support lands here (issue 28, H-storage's PostgreSQL step): no lookup or erase yet.
struct SupportNotMigrated: Error {}
