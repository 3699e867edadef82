import CSQLite

/// An error reported by SQLite, with its extended result code so callers can act on it
/// (`DatabaseError.Code.constraint`, `.busy`), the message SQLite gave, and the SQL involved.
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    /// The primary result code (the low byte of the extended code).
    public let primary: Int32
    /// The extended result code as SQLite returned it.
    public let extended: Int32

    init(_ extended: Int32) {
      self.extended = extended
      self.primary = extended & 0xFF
    }

    public static let busy = Code(SQLITE_BUSY)
    public static let locked = Code(SQLITE_LOCKED)
    public static let constraint = Code(SQLITE_CONSTRAINT)
    public static let corrupt = Code(SQLITE_CORRUPT)
    public static let cantOpen = Code(SQLITE_CANTOPEN)
    public static let misuse = Code(SQLITE_MISUSE)
    public static let error = Code(SQLITE_ERROR)

    public var description: String { String(cString: sqlite3_errstr(extended)) }

    public static func == (lhs: Code, rhs: Code) -> Bool { lhs.primary == rhs.primary }
    public func hash(into hasher: inout Hasher) { hasher.combine(primary) }
  }

  public let code: Code
  public let message: String
  public let sql: String?

  init(code: Int32, message: String, sql: String? = nil) {
    self.code = Code(code)
    self.message = message
    self.sql = sql
  }

  public var description: String {
    if let sql { return "SQLite error \(code.extended) (\(code)): \(message) — in `\(sql)`" }
    return "SQLite error \(code.extended) (\(code)): \(message)"
  }
}
