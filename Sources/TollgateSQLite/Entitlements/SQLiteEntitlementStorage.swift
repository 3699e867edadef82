import Logging
import TollgateCore
import TollgateStorage

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// `EntitlementStorage` on one SQLite file in WAL mode: one connection for writes, one for reads,
/// each on its own queue, so a reader never waits behind a writer's fsync.
public final class SQLiteEntitlementStorage: EntitlementStorage {
  public let path: String
  let writer: SerializedConnection
  let reader: SerializedConnection
  let logger: Logger

  /// Opens the database at `path` and applies pending migrations. With `create: false` (what
  /// `tollgate serve` does without `--create`), a missing file, or one without Tollgate's schema,
  /// is a `DatabaseFileError` naming the path. The writer fsyncs every commit (`.full`): a
  /// submission is on disk before it is acknowledged.
  public init(
    path: String, nowMs: Int64, create: Bool = true, synchronous: Connection.Synchronous = .full,
    logger: Logger = Logger(label: "tollgate.sqlite")
  ) throws {
    self.path = path
    self.logger = logger
    self.writer = try TollgateDatabase.open(
      path: path, options: Connection.Options(create: create, synchronous: synchronous),
      label: "tollgate.sqlite.writer", nowMs: nowMs)
    self.reader = try SerializedConnection(
      path: path, options: Connection.Options(create: false), label: "tollgate.sqlite.reader")
  }

  public func streamSnapshot(_ each: @escaping @Sendable (EntitlementRecord) -> Void) async throws -> Int64 {
    try await reader.read { db in
      try db.execute("BEGIN")
      defer { try? db.execute("COMMIT") }
      let head = try Self.headSeq(db)
      let statement = try db.prepare("SELECT \(Self.recordColumns) FROM entitlements")
      while try statement.step() { each(Self.record(statement)) }
      return head
    }
  }

  public func headSeq() async throws -> Int64 {
    try await reader.read { db in try Self.headSeq(db) }
  }

  public func changes(after seq: Int64, limit: Int) async throws -> [ChangeFeedEntry] {
    try await reader.read { db in
      try db.prepare("SELECT seq, user_id, reason, at_ms FROM change_feed WHERE seq > ? ORDER BY seq LIMIT ?")
        .rows([.integer(seq), .integer(Int64(limit))]) { row in
          ChangeFeedEntry(
            seq: row.int64(at: 0), userId: row.string(at: 1), reason: row.string(at: 2), atMs: row.int64(at: 3))
        }
    }
  }

  public func feedMark(at seq: Int64) async throws -> FeedMark {
    try await reader.read { db in
      try db.execute("BEGIN")
      defer { try? db.execute("COMMIT") }
      let databaseId = try db.prepare("SELECT database_id FROM database_meta WHERE id = 1").rows([]) {
        $0.string(at: 0)
      }.first
      let entry = try db.prepare("SELECT seq, user_id, reason, at_ms FROM change_feed WHERE seq = ?").rows([
        .integer(seq)
      ]) { row in
        ChangeFeedEntry(
          seq: row.int64(at: 0), userId: row.string(at: 1), reason: row.string(at: 2), atMs: row.int64(at: 3))
      }.first
      return FeedMark(databaseId: databaseId ?? "", headSeq: try Self.headSeq(db), entry: entry)
    }
  }

  public func fileProblem() -> DatabaseFileError? { writer.file.problem() }

  public func problem() -> String? { fileProblem()?.message }

  public func entitlements(forUsers userIds: [String]) async throws -> [String: [EntitlementRecord]] {
    guard !userIds.isEmpty else { return [:] }
    return try await reader.read { db in
      let statement = try db.prepare("SELECT \(Self.recordColumns) FROM entitlements WHERE user_id = ?")
      var result: [String: [EntitlementRecord]] = [:]
      for userId in Set(userIds) {
        let records = try statement.rows([.text(userId)], Self.record)
        if !records.isEmpty { result[userId] = records }
      }
      return result
    }
  }

  @discardableResult
  public func replaceEntitlements(
    userId: String, with records: [EntitlementRecord], reason: String, nowMs: Int64
  ) async throws -> Int64 {
    precondition(records.allSatisfy { $0.userId == userId }, "records of another user")
    return try await writer.write { db in
      try Self.replaceEntitlements(db, userId: userId, records: records, reason: reason, nowMs: nowMs)
    }
  }

  /// The synchronous form, for use inside a caller's own transaction.
  public static func replaceEntitlements(
    _ db: Connection, userId: String, records: [EntitlementRecord], reason: String, nowMs: Int64
  ) throws -> Int64 {
    try EntitlementWriter(db).replace(userId: userId, records: records, reason: reason, nowMs: nowMs)
  }

  /// Replaces the records of many users in one transaction (seeding, bulk imports), appending one
  /// change-feed entry per user. Returns the last sequence number.
  @discardableResult
  public func replaceEntitlements(
    batch: [(userId: String, records: [EntitlementRecord])], reason: String, nowMs: Int64
  ) async throws -> Int64 {
    try await writer.write { db in
      let writer = try EntitlementWriter(db)
      var seq: Int64 = 0
      for (userId, records) in batch {
        seq = try writer.replace(userId: userId, records: records, reason: reason, nowMs: nowMs)
      }
      return seq
    }
  }

  static func headSeq(_ db: Connection) throws -> Int64 {
    let statement = try db.prepare("SELECT COALESCE(MAX(seq), 0) FROM change_feed")
    _ = try statement.step()
    return statement.int64(at: 0)
  }
}
