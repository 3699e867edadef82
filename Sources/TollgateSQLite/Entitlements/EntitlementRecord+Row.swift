import TollgateCore
import TollgateStorage

extension SQLiteEntitlementStorage {
  static let recordColumns =
    "user_id, entitlement, source, store, product_id, environment, state, will_renew, expires_at_ms, access_ends_at_ms, verified_at_ms, reason, replaces"

  static func arguments(_ record: EntitlementRecord) -> [DatabaseValue] {
    [
      .text(record.userId), .text(record.entitlement), .text(record.source), .text(record.store.rawValue),
      .text(record.productId), .text(record.environment.rawValue), .text(record.state.rawValue),
      DatabaseValue(record.willRenew), .integer(record.expiresAtMs), .integer(record.accessEndsAtMs),
      .integer(record.verifiedAtMs), .text(record.reason?.rawValue ?? ""),
      .text(record.replaces.joined(separator: " ")),
    ]
  }

  /// Decodes a row selected with `recordColumns`. Unknown enum values (written by a newer version)
  /// decode to the most conservative reading rather than failing the whole load.
  static func record(_ row: Statement) -> EntitlementRecord {
    EntitlementRecord(
      userId: row.string(at: 0),
      entitlement: row.string(at: 1),
      source: row.string(at: 2),
      store: Store(rawValue: row.string(at: 3)) ?? .promotional,
      productId: row.string(at: 4),
      environment: StoreEnvironment(rawValue: row.string(at: 5)) ?? .production,
      state: SubscriptionState(rawValue: row.string(at: 6)) ?? .expired,
      willRenew: row.bool(at: 7),
      expiresAtMs: row.int64(at: 8),
      accessEndsAtMs: row.int64(at: 9),
      verifiedAtMs: row.int64(at: 10),
      reason: StateReason(rawValue: row.string(at: 11)),
      replaces: row.string(at: 12).split(separator: " ").map(String.init)
    )
  }
}
