import TollgateCore

/// The events of an operator's promotional grants (`granted`, `grant_revoked`): the user, the
/// grant (its id stands for the purchase id, its store is `promotional`), the entitlement with its
/// expiry, the note and who did it. Storage writes them in the transaction that changes the grant.
public enum GrantEvents {
  public static func granted(
    grantId: Int64, userId: String, entitlement: String, expiresAtMs: Int64, note: String?, actor: String?,
    nowMs: Int64
  ) -> WorkerEvent {
    event(
      "granted", grantId: grantId, userId: userId, entitlement: entitlement, expiresAtMs: expiresAtMs, note: note,
      actor: actor, nowMs: nowMs)
  }

  /// - Parameter expiresAtMs: when the grant would have ended.
  public static func revoked(
    grantId: Int64, userId: String, entitlement: String, expiresAtMs: Int64?, note: String?, actor: String?,
    nowMs: Int64
  ) -> WorkerEvent {
    event(
      "grant_revoked", grantId: grantId, userId: userId, entitlement: entitlement, expiresAtMs: expiresAtMs,
      note: note, actor: actor, nowMs: nowMs)
  }

  private static func event(
    _ kind: String, grantId: Int64, userId: String, entitlement: String, expiresAtMs: Int64?, note: String?,
    actor: String?, nowMs: Int64
  ) -> WorkerEvent {
    WorkerEvent(
      userId: userId, kind: kind, store: .promotional, purchaseId: String(grantId), productId: nil, state: nil,
      atMs: nowMs, detail: note,
      details: EventDetails(
        grant: EventGrant(entitlement: entitlement, expiresAtMs: expiresAtMs, note: note, actor: actor)))
  }
}

extension WorkerStorage {
  /// A grant nobody is named for (`actor` nil).
  public func addGrant(
    userId: String, entitlement: String, expiresAtMs: Int64, note: String?, nowMs: Int64,
    recompute: @escaping EntitlementRecompute
  ) async throws -> Int64 {
    try await addGrant(
      userId: userId, entitlement: entitlement, expiresAtMs: expiresAtMs, note: note, actor: nil, nowMs: nowMs,
      recompute: recompute)
  }

  /// A revocation without a note, nobody named for it.
  public func revokeGrants(
    userId: String, entitlement: String, nowMs: Int64, recompute: @escaping EntitlementRecompute
  ) async throws -> Int {
    try await revokeGrants(
      userId: userId, entitlement: entitlement, note: nil, actor: nil, nowMs: nowMs, recompute: recompute)
  }
}
