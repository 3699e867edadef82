import Logging
import PostgresNIO
import Synchronization
import TollgateCore
import TollgateStorage

/// `EntitlementStorage` on PostgreSQL, over one process's pool (`PostgresTollgateDatabase`): what
/// a `serve` replica reads its index from and stores submissions in. Every writer appends to the
/// change feed under `PostgresLocks.changeFeed` and notifies `tollgate_changes`
/// (`PostgresEntitlementWriter`), so a replica follows the feed in commit order and is woken at
/// each commit (`changeSignals`).
public final class PostgresEntitlementStorage: EntitlementStorage {
  public let database: PostgresTollgateDatabase
  let logger: Logger
  /// How often the change signals look at the feed themselves, in case a notification was lost
  /// (`changeSignals`).
  let fallbackInterval: Duration
  /// Why this storage cannot be trusted, as last found (`problem()`): set by any read that sees
  /// the database's id (`feedMark`, the change signals' look) differ from the one opened.
  private let replaced = Mutex<String?>(nil)
  /// Bounds the calls that are not the change feed's (submissions, the waits on their verdicts,
  /// writes) so that they never hold every pooled connection; nil: no bound.
  let otherCalls: PostgresCallGate?

  /// Pooled connections the change feed may need at once, kept free of other calls when the
  /// pool is bounded (`otherCallsAtOnce`): the listener's, the follower's catch-up and the
  /// fallback look.
  public static let feedConnections = 3

  /// A storage on `database`, which it owns from now on (`close()` closes it). `otherCallsAtOnce`
  /// bounds the calls that are not the change feed's (`submitPurchase`, `submission(id:)`,
  /// `headSeq`, `entitlements(forUsers:)`, the writes): `serve` passes its pool's size less
  /// `feedConnections`, so that a flood of submissions waiting on the database never leaves the
  /// follower waiting for a connection. Nil: no bound (tools, tests).
  public init(
    database: PostgresTollgateDatabase, fallbackInterval: Duration = .seconds(1), otherCallsAtOnce: Int? = nil,
    logger: Logger = Logger(label: "tollgate.postgres")
  ) {
    self.database = database
    self.fallbackInterval = fallbackInterval
    self.otherCalls = otherCallsAtOnce.map(PostgresCallGate.init(limit:))
    self.logger = logger
  }

  /// Runs a call that is not the change feed's under `otherCalls`.
  func otherCall<Value>(_ body: () async throws -> Value) async throws -> Value {
    guard let otherCalls else { return try await body() }
    return try await otherCalls.run(body)
  }

  /// Closes the pool this storage owns and waits for it to stop.
  public func close() async {
    database.close()
    await database.closed()
  }

  /// The records and the head they are consistent with, from one REPEATABLE READ transaction (one
  /// snapshot for both statements). Rows are read through a cursor a batch at a time
  /// (`PostgresSession.forEachRow`) as `each` takes them: never all in memory.
  public func streamSnapshot(_ each: @escaping @Sendable (EntitlementRecord) -> Void) async throws -> Int64 {
    try await database.withConnection { connection in
      try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
      do {
        let head = try await Self.headSeq(connection, logger: logger)
        try await connection.forEachRow(
          "SELECT \(unescaped: EntitlementRecordRow.columns) FROM entitlements", logger: logger
        ) { row in each(try EntitlementRecordRow.record(row)) }
        try await connection.query("COMMIT", logger: logger)
        return head
      } catch {
        _ = try? await connection.query("ROLLBACK", logger: logger)
        throw error
      }
    }
  }

  public func headSeq() async throws -> Int64 {
    try await otherCall {
      try await database.withConnection { connection in try await Self.headSeq(connection, logger: logger) }
    }
  }

  /// Entries after `seq` in order. Writers make numbers visible in the order they are handed out
  /// (the feed lock), so what one statement sees above `seq` has no hole that a later commit fills.
  public func changes(after seq: Int64, limit: Int) async throws -> [ChangeFeedEntry] {
    let rows = try await database.query(
      """
      SELECT \(unescaped: ChangeFeedRow.columns) FROM change_feed WHERE seq > \(seq) ORDER BY seq LIMIT \(Int64(limit))
      """)
    return try rows.map(ChangeFeedRow.entry)
  }

  /// The database's id as stored now, the head and the entry at `seq`, from one statement (one
  /// snapshot). An id other than the one this process opened (`database.databaseId`) means the
  /// database at this location was replaced or restored from another one: the follower reloads
  /// (it compares ids), and `problem()` says so until the ids agree again.
  public func feedMark(at seq: Int64) async throws -> FeedMark {
    let rows = try await database.query(
      """
      SELECT (SELECT database_id FROM database_meta WHERE id = 1),
        (SELECT COALESCE(MAX(seq), 0) FROM change_feed),
        entry.seq, entry.user_id, entry.reason, entry.at_ms
      FROM (SELECT 1) AS one LEFT JOIN change_feed AS entry ON entry.seq = \(seq)
      """)
    guard let row = rows.first else { throw PostgresStorageError.undecodable("feed mark returned no row") }
    let (databaseId, head, entrySeq, userId, reason, atMs) = try row.decode(
      (String?, Int64, Int64?, String?, String?, Int64?).self)
    noteDatabaseId(databaseId ?? "")
    var entry: ChangeFeedEntry?
    if let entrySeq, let userId, let reason, let atMs {
      entry = ChangeFeedEntry(seq: entrySeq, userId: userId, reason: reason, atMs: atMs)
    }
    return FeedMark(databaseId: databaseId ?? "", headSeq: head, entry: entry)
  }

  /// Nil unless a read found another database behind this location than the one opened (see
  /// `feedMark`): a value kept by those reads, so this never touches the network and never blocks.
  public func problem() -> String? { replaced.withLock { $0 } }

  /// Records whether `stored` (the id a read just saw) is the id of the database opened.
  func noteDatabaseId(_ stored: String) {
    let problem: String? =
      stored == database.databaseId
      ? nil
      : "the database at \(database.location) is not the one this process opened (its id \(database.databaseId) became \(stored.isEmpty ? "none" : stored)): it was replaced or restored; restart the process"
    let changed = replaced.withLock { current in
      defer { current = problem }
      return current != problem
    }
    if changed, let problem { logger.error("database replaced", metadata: ["reason": "\(problem)"]) }
  }

  public func entitlements(forUsers userIds: [String]) async throws -> [String: [EntitlementRecord]] {
    guard !userIds.isEmpty else { return [:] }
    let users = Array(Set(userIds))
    let rows = try await otherCall {
      try await database.query(
        """
        SELECT \(unescaped: EntitlementRecordRow.columns) FROM entitlements WHERE user_id = ANY(\(users)::text[])
        ORDER BY user_id, entitlement, source
        """)
    }
    var result: [String: [EntitlementRecord]] = [:]
    for row in rows {
      let record = try EntitlementRecordRow.record(row)
      result[record.userId, default: []].append(record)
    }
    return result
  }

  @discardableResult
  public func replaceEntitlements(
    userId: String, with records: [EntitlementRecord], reason: String, nowMs: Int64
  ) async throws -> Int64 {
    precondition(records.allSatisfy { $0.userId == userId }, "records of another user")
    return try await otherCall {
      try await database.transaction { connection in
        try await PostgresEntitlementWriter.lockFeed(connection, logger: logger)
        return try await PostgresEntitlementWriter.replace(
          connection, userId: userId, records: records, reason: reason, nowMs: nowMs, logger: logger)
      }
    }
  }

  /// Replaces the records of many users in one transaction, one change-feed entry per user.
  @discardableResult
  public func replaceEntitlements(
    batch: [(userId: String, records: [EntitlementRecord])], reason: String, nowMs: Int64
  ) async throws -> Int64 {
    guard !batch.isEmpty else { return 0 }
    return try await otherCall {
      try await database.transaction { connection in
        try await PostgresEntitlementWriter.lockFeed(connection, logger: logger)
        return try await PostgresEntitlementWriter.replace(
          connection, batch: batch, reason: reason, nowMs: nowMs, logger: logger)
      }
    }
  }

  static func headSeq(_ connection: PostgresSession, logger: Logger) async throws -> Int64 {
    let rows = try await connection.query("SELECT COALESCE(MAX(seq), 0) FROM change_feed", logger: logger)
    return try await rows.collect().first?.decode(Int64.self) ?? 0
  }
}
