import CSQLite

/// One libsqlite3 connection. Not thread-safe: confine it to one thread (see `SerializedConnection`).
public final class Connection {
  let handle: OpaquePointer
  public let path: String
  /// Compiled statements kept for reuse (`Statement` takes and gives them back).
  let preparedStatements = PreparedStatements()

  public struct Options: Sendable {
    public var readOnly = false
    /// Create the file if it is missing; otherwise a missing file fails with `.cantOpen`.
    public var create = true
    /// How long a statement waits for another connection's lock before failing with `.busy`.
    public var busyTimeoutMs: Int32 = 5_000
    /// When a commit reaches the disk (writable connections only).
    public var synchronous: Synchronous = .full
    /// The most the connection keeps of the database's pages in memory, in KiB (SQLite's
    /// `cache_size`); nil for SQLite's default, 2 MiB. Memory is taken only as pages are read.
    public var cacheKiB: Int?
    public init(
      readOnly: Bool = false, create: Bool = true, busyTimeoutMs: Int32 = 5_000, synchronous: Synchronous = .full,
      cacheKiB: Int? = nil
    ) {
      self.readOnly = readOnly
      self.create = create
      self.busyTimeoutMs = busyTimeoutMs
      self.synchronous = synchronous
      self.cacheKiB = cacheKiB
    }
  }

  /// SQLite's `PRAGMA synchronous` in WAL mode.
  public enum Synchronous: String, Sendable, CaseIterable {
    /// Every commit is fsynced before it returns: an acknowledged write survives power loss.
    case full = "FULL"
    /// Commits are fsynced only at checkpoints: a power loss can undo the last commits. For bulk
    /// tools (and measuring what FULL costs), never for the inbox.
    case normal = "NORMAL"
  }

  /// Opens the database at `path` (creating it if missing and `options.create`) in WAL mode with
  /// foreign keys on. A file it creates is 0600 whatever the umask (`PrivateFile`), and SQLite
  /// gives the `-wal` and `-shm` files the database file's mode.
  public init(path: String, options: Options = Options()) throws(DatabaseError) {
    if options.create, !options.readOnly, !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") {
      PrivateFile.createIfMissing(path)
    }
    var db: OpaquePointer?
    let writable = SQLITE_OPEN_READWRITE | (options.create ? SQLITE_OPEN_CREATE : 0)
    let flags = (options.readOnly ? SQLITE_OPEN_READONLY : writable) | SQLITE_OPEN_NOMUTEX
    let rc = sqlite3_open_v2(path, &db, flags, nil)
    guard rc == SQLITE_OK, let db else {
      let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open database"
      if let db { sqlite3_close_v2(db) }
      throw DatabaseError(code: rc, message: "\(message) (\(path))")
    }
    self.handle = db
    self.path = path
    sqlite3_extended_result_codes(db, 1)
    sqlite3_busy_timeout(db, options.busyTimeoutMs)
    if !options.readOnly {
      try execute("PRAGMA journal_mode = WAL")
      try execute("PRAGMA synchronous = \(options.synchronous.rawValue)")
    }
    try execute("PRAGMA foreign_keys = ON")
    if let cacheKiB = options.cacheKiB { try execute("PRAGMA cache_size = -\(max(cacheKiB, 1))") }
  }

  deinit {
    preparedStatements.finalizeAll()
    sqlite3_close_v2(handle)
  }

  /// Runs one or more SQL statements that return no rows of interest.
  public func execute(_ sql: String) throws(DatabaseError) {
    var errorMessage: UnsafeMutablePointer<CChar>?
    let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
    if rc != SQLITE_OK {
      let message = errorMessage.map { String(cString: $0) } ?? lastErrorMessage
      sqlite3_free(errorMessage)
      throw DatabaseError(code: rc, message: message, sql: sql)
    }
  }

  /// Runs one statement with arguments.
  public func execute(_ sql: String, _ arguments: [DatabaseValue]) throws(DatabaseError) {
    let statement = try prepare(sql)
    try statement.bind(arguments)
    while try statement.step() {}
  }

  public func prepare(_ sql: String) throws(DatabaseError) -> Statement {
    try Statement(connection: self, sql: sql)
  }

  /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back if it throws.
  public func transaction<T>(_ body: (Connection) throws -> T) throws -> T {
    try execute("BEGIN IMMEDIATE")
    do {
      let result = try body(self)
      try execute("COMMIT")
      return result
    } catch {
      try? execute("ROLLBACK")
      throw error
    }
  }

  public var lastInsertedRowId: Int64 { sqlite3_last_insert_rowid(handle) }
  /// Whether a transaction is open: SQLite ends one itself after some errors (I/O, a full disk).
  public var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }
  public var changes: Int { Int(sqlite3_changes(handle)) }
  var lastErrorMessage: String { String(cString: sqlite3_errmsg(handle)) }

  /// SQLite's `PRAGMA data_version`: changes when another connection commits to the file.
  public func dataVersion() throws(DatabaseError) -> Int64 {
    let statement = try prepare("PRAGMA data_version")
    guard try statement.step() else { return 0 }
    return statement.int64(at: 0)
  }
}

@available(*, unavailable)
extension Connection: Sendable {}
