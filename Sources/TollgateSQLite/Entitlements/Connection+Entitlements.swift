import TollgateCore
import TollgateStorage

/// Entitlement records inside a transaction someone else opened: for modules that write other
/// tables in the same transaction (the worker's storage recomputes a user's entitlements with
/// every verification it writes).
extension Connection {
  /// The records of `userId`.
  public func entitlementRecords(userId: String) throws -> [EntitlementRecord] {
    try prepare("SELECT \(SQLiteEntitlementStorage.recordColumns) FROM entitlements WHERE user_id = ?")
      .rows([.text(userId)], SQLiteEntitlementStorage.record)
  }

  /// Replaces every record of `userId` and appends the change to the feed; returns its sequence number.
  @discardableResult
  public func replaceEntitlementRecords(userId: String, records: [EntitlementRecord], reason: String, nowMs: Int64)
    throws
    -> Int64
  {
    try EntitlementWriter(self).replace(userId: userId, records: records, reason: reason, nowMs: nowMs)
  }
}
