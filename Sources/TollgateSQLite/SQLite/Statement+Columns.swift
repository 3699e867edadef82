import CSQLite

extension Statement {
  /// How many columns each row of this statement has.
  public var columnCount: Int32 { sqlite3_column_count(handle) }

  /// The name of column `column` as the statement gives it (`AS` name, or the table's).
  public func columnName(at column: Int32) -> String {
    sqlite3_column_name(handle, column).map { String(cString: $0) } ?? ""
  }

  /// Column `column` of the current row as SQLite stores it, whatever the column's declared type:
  /// for tools that copy rows without knowing their columns (`tollgate migrate-storage`).
  public func value(at column: Int32) -> DatabaseValue {
    switch sqlite3_column_type(handle, column) {
    case SQLITE_NULL: .null
    case SQLITE_INTEGER: .integer(int64(at: column))
    case SQLITE_FLOAT: .real(sqlite3_column_double(handle, column))
    case SQLITE_BLOB: .blob(blob(at: column))
    default: .text(string(at: column))
    }
  }
}
