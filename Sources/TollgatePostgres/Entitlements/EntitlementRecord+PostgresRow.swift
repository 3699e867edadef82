import PostgresNIO
import TollgateCore
import TollgateStorage

/// How an `EntitlementRecord` is stored in PostgreSQL's `entitlements` table: the same columns
/// and the same text as SQLite's (`SQLiteEntitlementStorage.recordColumns`), the flag as a BIGINT.
enum EntitlementRecordRow {
  static let columns =
    "user_id, entitlement, source, store, product_id, environment, state, will_renew, expires_at_ms, access_ends_at_ms, verified_at_ms, reason, replaces"

  /// Decodes a row selected with `columns`. Unknown enum values (written by a newer version)
  /// decode to the most conservative reading rather than failing the whole load, as on SQLite.
  static func record(_ row: PostgresRow) throws -> EntitlementRecord {
    let cells = row.makeRandomAccess()
    return record(
      userId: try cells[0].decode(String.self),
      entitlement: try cells[1].decode(String.self),
      source: try cells[2].decode(String.self),
      store: try cells[3].decode(String.self),
      productId: try cells[4].decode(String.self),
      environment: try cells[5].decode(String.self),
      state: try cells[6].decode(String.self),
      willRenew: try cells[7].decode(Int64.self),
      expiresAtMs: try cells[8].decode(Int64.self),
      accessEndsAtMs: try cells[9].decode(Int64.self),
      verifiedAtMs: try cells[10].decode(Int64.self),
      reason: try cells[11].decode(String.self),
      replaces: try cells[12].decode(String.self))
  }

  /// A record from the stored values of its columns (a row's cells, or one element of each
  /// column's array: `PostgresEntitlementStorage.catchUp`).
  static func record(
    userId: String, entitlement: String, source: String, store: String, productId: String, environment: String,
    state: String, willRenew: Int64, expiresAtMs: Int64, accessEndsAtMs: Int64, verifiedAtMs: Int64, reason: String,
    replaces: String
  ) -> EntitlementRecord {
    EntitlementRecord(
      userId: userId, entitlement: entitlement, source: source, store: Store(rawValue: store) ?? .promotional,
      productId: productId, environment: StoreEnvironment(rawValue: environment) ?? .production,
      state: SubscriptionState(rawValue: state) ?? .expired, willRenew: willRenew != 0, expiresAtMs: expiresAtMs,
      accessEndsAtMs: accessEndsAtMs, verifiedAtMs: verifiedAtMs, reason: StateReason(rawValue: reason),
      replaces: replaces.split(separator: " ").map(String.init))
  }

  /// An `INSERT` of every record at once: one array per column, unnested by the server (one
  /// round trip however many records a user has).
  static func insert(_ records: [EntitlementRecord]) -> PostgresQuery {
    let userIds = records.map(\.userId)
    let entitlements = records.map(\.entitlement)
    let sources = records.map(\.source)
    let stores = records.map(\.store.rawValue)
    let productIds = records.map(\.productId)
    let environments = records.map(\.environment.rawValue)
    let states = records.map(\.state.rawValue)
    let willRenew = records.map { Int64($0.willRenew ? 1 : 0) }
    let expires = records.map(\.expiresAtMs)
    let accessEnds = records.map(\.accessEndsAtMs)
    let verified = records.map(\.verifiedAtMs)
    let reasons = records.map { $0.reason?.rawValue ?? "" }
    let replaces = records.map { $0.replaces.joined(separator: " ") }
    return """
      INSERT INTO entitlements (\(unescaped: columns))
      SELECT * FROM UNNEST(
        \(userIds)::text[], \(entitlements)::text[], \(sources)::text[], \(stores)::text[], \(productIds)::text[],
        \(environments)::text[], \(states)::text[], \(willRenew)::bigint[], \(expires)::bigint[],
        \(accessEnds)::bigint[], \(verified)::bigint[], \(reasons)::text[], \(replaces)::text[])
      """
  }
}

/// One change-feed row as `ChangeFeedEntry`: `seq, user_id, reason, at_ms`.
enum ChangeFeedRow {
  static let columns = "seq, user_id, reason, at_ms"

  static func entry(_ row: PostgresRow) throws -> ChangeFeedEntry {
    let (seq, userId, reason, atMs) = try row.decode((Int64, String, String, Int64).self)
    return ChangeFeedEntry(seq: seq, userId: userId, reason: reason, atMs: atMs)
  }
}
