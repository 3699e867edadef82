import PostgresNIO
import TollgateCore
import TollgateStorage

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension PostgresEntitlementStorage {
  /// What a woken follower reads, in one statement: one round trip, and one snapshot (READ
  /// COMMITTED takes one per statement), so the mark, the catalog's access levels, the entries
  /// and the records all show the database at one moment, and the head is at or past the last
  /// entry. One row: the mark and the catalog in columns, the entries and the records as one
  /// array per column (elements at one index are one row: the aggregates of one `SELECT` read
  /// their rows in one pass). The four separate reads cost four round trips through the pool,
  /// each a wait for a busy event loop and a busy server on a loaded machine.
  ///
  /// The records are looked up by `= ANY(ARRAY(…))`, an array computed first: the planner then
  /// reads the primary key for each user. Joined to the entries instead (`IN (SELECT …)`), it
  /// plans for `limit` entries and scans the whole table (20 ms at 100,000 users, against 0.1).
  public func catchUp(after seq: Int64, limit: Int) async throws -> FeedCatchUp {
    let rows = try await database.query(
      """
      WITH entries AS (
        SELECT seq, user_id, reason, at_ms FROM change_feed WHERE seq > \(seq) ORDER BY seq LIMIT \(Int64(limit))
      ), records AS (
        SELECT \(unescaped: EntitlementRecordRow.columns) FROM entitlements
        WHERE user_id = ANY(ARRAY(SELECT DISTINCT user_id FROM entries))
      )
      SELECT (SELECT database_id FROM database_meta WHERE id = 1), (SELECT COALESCE(MAX(seq), 0) FROM change_feed),
        mark.seq, mark.user_id, mark.reason, mark.at_ms,
        catalog.id IS NOT NULL, NULLIF(catalog.catalog_json::jsonb -> 'accessLevels', 'null'::jsonb)::text,
        e.*, r.*
      FROM (SELECT 1) AS one
        LEFT JOIN change_feed AS mark ON mark.seq = \(seq)
        LEFT JOIN catalog ON catalog.id = 1
        CROSS JOIN (
          SELECT array_agg(seq ORDER BY seq), array_agg(user_id ORDER BY seq), array_agg(reason ORDER BY seq),
            array_agg(at_ms ORDER BY seq)
          FROM entries) AS e
        CROSS JOIN (
          SELECT array_agg(user_id), array_agg(entitlement), array_agg(source), array_agg(store), array_agg(product_id),
            array_agg(environment), array_agg(state), array_agg(will_renew), array_agg(expires_at_ms),
            array_agg(access_ends_at_ms), array_agg(verified_at_ms), array_agg(reason), array_agg(replaces)
          FROM records) AS r
      """)
    guard let row = rows.first else { throw PostgresStorageError.undecodable("catch-up returned no row") }
    let cells = row.makeRandomAccess()
    let databaseId = try cells[0].decode(String?.self) ?? ""
    noteDatabaseId(databaseId)
    var markEntry: ChangeFeedEntry?
    if let entrySeq = try cells[2].decode(Int64?.self), let userId = try cells[3].decode(String?.self),
      let reason = try cells[4].decode(String?.self), let atMs = try cells[5].decode(Int64?.self)
    {
      markEntry = ChangeFeedEntry(seq: entrySeq, userId: userId, reason: reason, atMs: atMs)
    }
    let mark = FeedMark(databaseId: databaseId, headSeq: try cells[1].decode(Int64.self), entry: markEntry)
    let accessLevels = Self.accessLevels(
      catalogSaved: try cells[6].decode(Bool.self), json: try cells[7].decode(String?.self))

    let seqs = try cells[8].decode([Int64]?.self) ?? []
    let userIds = try cells[9].decode([String]?.self) ?? []
    let reasons = try cells[10].decode([String]?.self) ?? []
    let times = try cells[11].decode([Int64]?.self) ?? []
    guard userIds.count == seqs.count, reasons.count == seqs.count, times.count == seqs.count else {
      throw PostgresStorageError.undecodable("catch-up entries of unequal lengths")
    }
    let entries = seqs.indices.map {
      ChangeFeedEntry(seq: seqs[$0], userId: userIds[$0], reason: reasons[$0], atMs: times[$0])
    }
    return FeedCatchUp(
      mark: mark, accessLevels: accessLevels, entries: entries, records: try Self.records(cells, from: 12))
  }

  /// What `savedAccessLevels()` answers for the catalog row as read: nil with no catalog, the
  /// defaults when it names no levels; levels that cannot be decoded are the answer's failure.
  private static func accessLevels(catalogSaved: Bool, json: String?) -> Result<
    AccessLevelPolicy?, UnreadableAccessLevels
  > {
    guard catalogSaved else { return .success(nil) }
    guard let json else { return .success(.defaults) }
    do {
      return .success(try JSONDecoder().decode(AccessLevelPolicy.self, from: Data(json.utf8)))
    } catch {
      return .failure(UnreadableAccessLevels("\(error)"))
    }
  }

  /// The records from the 13 arrays starting at `first` (`EntitlementRecordRow.columns`, in
  /// order), by user.
  private static func records(_ cells: PostgresRandomAccessRow, from first: Int) throws -> [String: [EntitlementRecord]]
  {
    func texts(_ n: Int) throws -> [String] { try cells[first + n].decode([String]?.self) ?? [] }
    func numbers(_ n: Int) throws -> [Int64] { try cells[first + n].decode([Int64]?.self) ?? [] }
    let userIds = try texts(0)
    let entitlements = try texts(1)
    let sources = try texts(2)
    let stores = try texts(3)
    let productIds = try texts(4)
    let environments = try texts(5)
    let states = try texts(6)
    let willRenew = try numbers(7)
    let expires = try numbers(8)
    let accessEnds = try numbers(9)
    let verified = try numbers(10)
    let reasons = try texts(11)
    let replaces = try texts(12)
    let counts = [
      entitlements.count, sources.count, stores.count, productIds.count, environments.count, states.count,
      willRenew.count, expires.count, accessEnds.count, verified.count, reasons.count, replaces.count,
    ]
    guard counts.allSatisfy({ $0 == userIds.count }) else {
      throw PostgresStorageError.undecodable("catch-up records of unequal lengths")
    }
    var result: [String: [EntitlementRecord]] = [:]
    for i in userIds.indices {
      let record = EntitlementRecordRow.record(
        userId: userIds[i], entitlement: entitlements[i], source: sources[i], store: stores[i],
        productId: productIds[i], environment: environments[i], state: states[i], willRenew: willRenew[i],
        expiresAtMs: expires[i], accessEndsAtMs: accessEnds[i], verifiedAtMs: verified[i], reason: reasons[i],
        replaces: replaces[i])
      result[record.userId, default: []].append(record)
    }
    return result
  }
}
