import PostgresNIO
import TollgateCore
import TollgatePostgres
import TollgateStorage
import TollgateWorker

/// Promotional grants. Each write takes the change-feed and events locks first
/// (`fencedTransaction(appendsToFeeds: true)`): the user's recompute then reads subscriptions and
/// grants that no other entitlement writer can change before this one commits, and its change-feed
/// entry and events get their numbers in commit order.
extension PostgresWorkerStorage {
  // MARK: Grants

  public func grants(userId: String) async throws -> [PromotionalGrant] {
    try await database.withConnection { connection in
      try await Self.grants(connection, userId: userId, logger: logger)
    }
  }

  /// Adds a grant, recomputes the user's entitlements and writes its `granted` event, in one
  /// transaction; returns its id.
  public func addGrant(
    userId: String, entitlement: String, expiresAtMs: Int64, note: String?, actor: String?, nowMs: Int64,
    recompute: @escaping EntitlementRecompute
  ) async throws -> Int64 {
    try await fencedTransaction(appendsToFeeds: true) { connection in
      let rows = try await connection.query(
        """
        INSERT INTO grants (user_id, entitlement, granted_at_ms, expires_at_ms, note)
        VALUES (\(userId), \(entitlement), \(nowMs), \(expiresAtMs), \(note))
        RETURNING id
        """, logger: logger
      ).collect()
      guard let id = try rows.first?.decode(Int64.self) else {
        throw PostgresStorageError.undecodable("the new grant's id was not returned")
      }
      let records = try await Self.recompute(
        connection, userId: userId, reason: "grant", nowMs: nowMs, recompute: recompute, logger: logger)
      let event = GrantEvents.granted(
        grantId: id, userId: userId, entitlement: entitlement, expiresAtMs: expiresAtMs, note: note, actor: actor,
        nowMs: nowMs)
      try await Self.insert(connection, events: [event], records: [userId: records], nowMs: nowMs, logger: logger)
      return id
    }
  }

  /// Revokes the user's open grants of `entitlement`, recomputing and writing a `grant_revoked`
  /// event per grant in one transaction; returns how many.
  public func revokeGrants(
    userId: String, entitlement: String, note: String?, actor: String?, nowMs: Int64,
    recompute: @escaping EntitlementRecompute
  ) async throws -> Int {
    try await fencedTransaction(appendsToFeeds: true) { connection in
      let revoked = try await connection.query(
        """
        WITH revoked AS (
          UPDATE grants SET revoked_at_ms = \(nowMs)
          WHERE user_id = \(userId) AND entitlement = \(entitlement) AND revoked_at_ms IS NULL
          RETURNING id, expires_at_ms)
        SELECT id, expires_at_ms FROM revoked ORDER BY id
        """, logger: logger
      ).collect().map { try $0.decode((Int64, Int64?).self) }
      let records = try await Self.recompute(
        connection, userId: userId, reason: "grant_revoked", nowMs: nowMs, recompute: recompute, logger: logger)
      let events = revoked.map { id, expiresAtMs in
        GrantEvents.revoked(
          grantId: id, userId: userId, entitlement: entitlement, expiresAtMs: expiresAtMs, note: note, actor: actor,
          nowMs: nowMs)
      }
      try await Self.insert(connection, events: events, records: [userId: records], nowMs: nowMs, logger: logger)
      return revoked.count
    }
  }
}
