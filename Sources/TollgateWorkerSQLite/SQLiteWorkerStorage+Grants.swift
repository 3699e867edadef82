import TollgateCore
import TollgateStorage
import TollgateWorker

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension SQLiteWorkerStorage {
  // MARK: Grants

  public func grants(userId: String) async throws -> [PromotionalGrant] {
    try await writer.read { db in try Self.grants(db, userId: userId) }
  }

  /// Adds a grant and recomputes the user's entitlements in the same transaction.
  public func addGrant(
    userId: String, entitlement: String, expiresAtMs: Int64, note: String?, nowMs: Int64,
    recompute: @escaping EntitlementRecompute
  ) async throws -> Int64 {
    try await fencedWrite { db in
      try db.execute(
        "INSERT INTO grants (user_id, entitlement, granted_at_ms, expires_at_ms, note) VALUES (?, ?, ?, ?, ?)",
        [.text(userId), .text(entitlement), .integer(nowMs), .integer(expiresAtMs), DatabaseValue(note)])
      let id = db.lastInsertedRowId
      _ = try Self.recompute(db, userId: userId, reason: "grant", nowMs: nowMs, recompute: recompute)
      return id
    }
  }

  /// Revokes the user's open grants of `entitlement`; returns how many.
  public func revokeGrants(userId: String, entitlement: String, nowMs: Int64, recompute: @escaping EntitlementRecompute)
    async throws -> Int
  {
    try await fencedWrite { db in
      try db.execute(
        "UPDATE grants SET revoked_at_ms = ? WHERE user_id = ? AND entitlement = ? AND revoked_at_ms IS NULL",
        [.integer(nowMs), .text(userId), .text(entitlement)])
      let count = db.changes
      _ = try Self.recompute(db, userId: userId, reason: "grant_revoked", nowMs: nowMs, recompute: recompute)
      return count
    }
  }
}
