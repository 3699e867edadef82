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

  /// Decodes a row selected with `recordColumns`, through the snapshot's decoder (`RowDecoder`):
  /// unknown enum values (written by a newer version) decode to the most conservative reading
  /// rather than failing the whole load.
  static func record(_ row: Statement) -> EntitlementRecord {
    rowDecoder.row(row).record
  }

  /// One decoder for every row read outside a snapshot (its vocabularies are built once).
  static let rowDecoder = RowDecoder()
}
