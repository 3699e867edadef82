/// What is wrong with a database file itself, as opposed to a statement on it (`DatabaseError`):
/// it is not there, it is not a Tollgate database, a newer Tollgate upgraded it, or the path
/// names another file than the one this process opened. Every message names the path and says what to do.
public struct DatabaseFileError: Error, Sendable, CustomStringConvertible {
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private enum Value: String {
      case missing
      case notTollgate = "not_tollgate"
      case deleted, replaced
      case schemaNewer = "schema_newer"
    }
    private let value: Value
    private init(_ value: Value) { self.value = value }

    /// Nothing at the path, and this opening may not create a database.
    public static let missing = Code(.missing)
    /// A file at the path without Tollgate's schema, and this opening may not create one.
    public static let notTollgate = Code(.notTollgate)
    /// The file this process opened was deleted from its path.
    public static let deleted = Code(.deleted)
    /// The path names another file now (renamed over, restored from a copy).
    public static let replaced = Code(.replaced)
    /// The database records migrations this version does not know: a newer Tollgate upgraded it.
    public static let schemaNewer = Code(.schemaNewer)

    public var description: String { value.rawValue }
  }

  public let code: Code
  public let path: String
  public let message: String

  public init(code: Code, path: String, message: String) {
    self.code = code
    self.path = path
    self.message = message
  }

  static func missing(_ path: String, hint: String) -> DatabaseFileError {
    DatabaseFileError(code: .missing, path: path, message: "no database at \(path); \(hint)")
  }

  static func notTollgate(_ path: String, hint: String) -> DatabaseFileError {
    DatabaseFileError(
      code: .notTollgate, path: path, message: "\(path) is not a Tollgate database (it has no Tollgate schema); \(hint)"
    )
  }

  /// The same words as PostgreSQL's `PostgresStorageError.schemaNewer`.
  static func schemaNewer(_ path: String, unknown: [String]) -> DatabaseFileError {
    DatabaseFileError(
      code: .schemaNewer, path: path,
      message:
        "the database \(path) was upgraded by a newer Tollgate (migrations \(unknown.joined(separator: ", ")) "
        + "unknown to this version): run the newer version")
  }

  static func deleted(_ path: String) -> DatabaseFileError {
    DatabaseFileError(
      code: .deleted, path: path,
      message:
        "the database file \(path) was deleted after this process opened it; writes would be lost: "
        + "restore the file and restart this process")
  }

  /// What SQLite keeps beside the database at `path` (its `-wal` or `-shm` file).
  static func sidecarName(_ path: String) -> String {
    path.hasSuffix("-wal") ? "write-ahead log" : "shared-memory index"
  }

  static func sidecarDeleted(_ path: String, database: String) -> DatabaseFileError {
    DatabaseFileError(
      code: .deleted, path: path,
      message:
        "the database's \(sidecarName(path)) \(path) was deleted while this process had \(database) open; "
        + "commits go to a file nobody reads after a restart and would be lost: stop every process using "
        + "\(database), check it (PRAGMA integrity_check) or restore a backup, then start them again")
  }

  static func sidecarReplaced(_ path: String, database: String, opened: FileIdentity, now: FileIdentity)
    -> DatabaseFileError
  {
    DatabaseFileError(
      code: .replaced, path: path,
      message:
        "the database's \(sidecarName(path)) \(path) was replaced while this process had \(database) open "
        + "(opened \(opened), now \(now)); commits would be lost: stop every process using \(database), "
        + "check it (PRAGMA integrity_check) or restore a backup, then start them again")
  }

  static func replaced(_ path: String, opened: FileIdentity, now: FileIdentity) -> DatabaseFileError {
    DatabaseFileError(
      code: .replaced, path: path,
      message:
        "the database file \(path) was replaced after this process opened it (opened \(opened), now \(now)); "
        + "this process still has the old file: restart it to use the new one")
  }

  public var description: String { message }
}
