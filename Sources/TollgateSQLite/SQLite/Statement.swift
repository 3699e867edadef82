import CSQLite

/// A prepared statement of a `Connection`. Not thread-safe; lives as long as its use.
public final class Statement {
  let handle: OpaquePointer
  /// Strong: the statement gives its handle back to the connection's cache when it ends.
  let connection: Connection
  public let sql: String

  init(connection: Connection, sql: String) throws(DatabaseError) {
    if let prepared = connection.preparedStatements.take(sql) {
      self.handle = prepared
    } else {
      var statement: OpaquePointer?
      let rc = sqlite3_prepare_v2(connection.handle, sql, -1, &statement, nil)
      guard rc == SQLITE_OK, let statement else {
        throw DatabaseError(code: rc, message: connection.lastErrorMessage, sql: sql)
      }
      self.handle = statement
    }
    self.connection = connection
    self.sql = sql
  }

  deinit {
    // Reset (which ends any read it holds open) and kept for the next use of the same SQL.
    connection.preparedStatements.give(handle, sql: sql)
  }

  /// Resets the statement and binds `arguments` to its parameters, in order.
  public func bind(_ arguments: [DatabaseValue]) throws(DatabaseError) {
    reset()
    sqlite3_clear_bindings(handle)
    for (offset, value) in arguments.enumerated() {
      let index = Int32(offset + 1)
      let rc: Int32
      switch value {
      case .null: rc = sqlite3_bind_null(handle, index)
      case .integer(let int): rc = sqlite3_bind_int64(handle, index, int)
      case .real(let double): rc = sqlite3_bind_double(handle, index, double)
      case .text(let string): rc = sqlite3_bind_text(handle, index, string, -1, tollgate_sqlite_transient())
      case .blob(let bytes):
        rc = bytes.withUnsafeBytes {
          sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), tollgate_sqlite_transient())
        }
      }
      guard rc == SQLITE_OK else {
        throw DatabaseError(code: rc, message: connection.lastErrorMessage, sql: sql)
      }
    }
  }

  /// Ends the statement's current run (and with it the read transaction it holds open); it can
  /// run again.
  public func reset() {
    sqlite3_reset(handle)
  }

  /// Advances to the next row. Returns false when the statement is done.
  public func step() throws(DatabaseError) -> Bool {
    let rc = sqlite3_step(handle)
    switch rc {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    default: throw DatabaseError(code: rc, message: connection.lastErrorMessage, sql: sql)
    }
  }

  public func isNull(at column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
  public func int64(at column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
  public func bool(at column: Int32) -> Bool { sqlite3_column_int64(handle, column) != 0 }
  public func optionalInt64(at column: Int32) -> Int64? { isNull(at: column) ? nil : int64(at: column) }

  public func string(at column: Int32) -> String {
    guard let text = sqlite3_column_text(handle, column) else { return "" }
    let count = Int(sqlite3_column_bytes(handle, column))
    return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
  }

  public func optionalString(at column: Int32) -> String? { isNull(at: column) ? nil : string(at: column) }

  public func blob(at column: Int32) -> [UInt8] {
    guard let bytes = sqlite3_column_blob(handle, column) else { return [] }
    let count = Int(sqlite3_column_bytes(handle, column))
    return Array(UnsafeRawBufferPointer(start: bytes, count: count))
  }

  /// Runs the statement with `arguments` and maps every row.
  public func rows<T>(_ arguments: [DatabaseValue] = [], _ map: (Statement) throws -> T) throws -> [T] {
    try bind(arguments)
    var result: [T] = []
    while try step() { result.append(try map(self)) }
    return result
  }
}

@available(*, unavailable)
extension Statement: Sendable {}
