import TollgateCore
import TollgateStorage
import TollgateWorker

/// The support reads (`WorkerStorage`, "Support").
extension SQLiteWorkerStorage {
  /// Every event of one chain, oldest first (id order: commit order).
  public func events(store: Store, purchaseId: String) async throws -> [WorkerEvent] {
    try await writer.read { db in
      try db.prepare(
        "SELECT \(Self.eventColumns) FROM events WHERE store = ? AND store_subscription_id = ? ORDER BY id"
      ).rows([.text(store.rawValue), .text(purchaseId)]) { Self.event($0) }
    }
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

/// Until migration v21-support lands here (issue 28, the next commit): no lookup or erase yet.
struct SupportNotMigrated: Error {}
