import TollgateCore
import TollgateStorage

/// Prepared statements for replacing users' entitlement records inside one transaction.
struct EntitlementWriter {
  private let db: Connection
  private let insertUser: Statement
  private let deleteRecords: Statement
  private let insertRecord: Statement
  private let appendChange: Statement

  init(_ db: Connection) throws {
    self.db = db
    insertUser = try db.prepare(
      "INSERT INTO users (user_id, created_at_ms) VALUES (?, ?) ON CONFLICT(user_id) DO NOTHING")
    deleteRecords = try db.prepare("DELETE FROM entitlements WHERE user_id = ?")
    insertRecord = try db.prepare(
      "INSERT INTO entitlements (\(SQLiteEntitlementStorage.recordColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    )
    appendChange = try db.prepare("INSERT INTO change_feed (user_id, reason, at_ms) VALUES (?, ?, ?)")
  }

  /// Replaces every record of `userId`; returns the change-feed sequence number of the write.
  func replace(userId: String, records: [EntitlementRecord], reason: String, nowMs: Int64) throws -> Int64 {
    precondition(records.allSatisfy { $0.userId == userId }, "records of another user")
    try run(insertUser, [.text(userId), .integer(nowMs)])
    try run(deleteRecords, [.text(userId)])
    for record in records {
      try run(insertRecord, SQLiteEntitlementStorage.arguments(record))
    }
    try run(appendChange, [.text(userId), .text(reason), .integer(nowMs)])
    return db.lastInsertedRowId
  }

  private func run(_ statement: Statement, _ arguments: [DatabaseValue]) throws {
    try statement.bind(arguments)
    while try statement.step() {}
  }
}
