import TollgateCore
import TollgateSQLite
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
    userId: String, entitlement: String, expiresAtMs: Int64, note: String?, actor: String?, nowMs: Int64,
    recompute: @escaping EntitlementRecompute
  ) async throws -> Int64 {
    try await fencedWrite { db in
      try db.execute(
        "INSERT INTO grants (user_id, entitlement, granted_at_ms, expires_at_ms, note) VALUES (?, ?, ?, ?, ?)",
        [.text(userId), .text(entitlement), .integer(nowMs), .integer(expiresAtMs), DatabaseValue(note)])
      let id = db.lastInsertedRowId
      let records = try Self.recompute(db, userId: userId, reason: "grant", nowMs: nowMs, recompute: recompute)
      let event = GrantEvents.granted(
        grantId: id, userId: userId, entitlement: entitlement, expiresAtMs: expiresAtMs, note: note, actor: actor,
        nowMs: nowMs)
      try Self.insert(db, events: [event], records: [userId: records], nowMs: nowMs)
      return id
    }
  }

  /// Revokes the user's open grants of `entitlement`; returns how many.
  public func revokeGrants(
    userId: String, entitlement: String, note: String?, actor: String?, nowMs: Int64,
    recompute: @escaping EntitlementRecompute
  ) async throws -> Int {
    try await fencedWrite { db in
      let open = try db.prepare(
        "SELECT id, expires_at_ms FROM grants WHERE user_id = ? AND entitlement = ? AND revoked_at_ms IS NULL ORDER BY id"
      ).rows([.text(userId), .text(entitlement)]) { (id: $0.int64(at: 0), expiresAtMs: $0.optionalInt64(at: 1)) }
      try db.execute(
        "UPDATE grants SET revoked_at_ms = ? WHERE user_id = ? AND entitlement = ? AND revoked_at_ms IS NULL",
        [.integer(nowMs), .text(userId), .text(entitlement)])
      let count = db.changes
      let records = try Self.recompute(db, userId: userId, reason: "grant_revoked", nowMs: nowMs, recompute: recompute)
      let events = open.map {
        GrantEvents.revoked(
          grantId: $0.id, userId: userId, entitlement: entitlement, expiresAtMs: $0.expiresAtMs, note: note,
          actor: actor, nowMs: nowMs)
      }
      try Self.insert(db, events: events, records: [userId: records], nowMs: nowMs)
      return count
    }
  }
}
