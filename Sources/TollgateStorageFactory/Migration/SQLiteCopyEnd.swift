import TollgateSQLite

/// An SQLite database as either end of `tollgate migrate-storage`, on the `SerializedConnection`
/// every Tollgate process uses (its queue keeps SQLite's calls off the cooperative pool).
enum SQLiteCopyEnd {
  static let hint = "check the path given to --from"

  /// The source at `path`: it must exist and hold exactly the migrations this version knows. It is
  /// opened without migrating (`TollgateDatabase.open` would upgrade it in place).
  static func openSource(path: String) throws -> SerializedConnection {
    guard FileIdentity.of(path: path) != nil else {
      throw DatabaseFileError(code: .missing, path: path, message: "no database at \(path); \(hint)")
    }
    let connection = try SerializedConnection(
      path: path, options: Connection.Options(create: false), label: "tollgate.migrate.source")
    guard let applied = try connection.readSync(appliedMigrations) else {
      throw StorageMigrationError.sourceNotTollgate(path)
    }
    try StorageMigration.checkSource(applied: applied, known: Schema.migrator.identifiers, database: path)
    return connection
  }

  /// The target at `path`: created with this version's schema when missing (or an empty file);
  /// an existing Tollgate database must be at this version's schema (its rows are looked at later).
  static func openTarget(path: String, nowMs: Int64) throws -> SerializedConnection {
    if FileIdentity.of(path: path) != nil {
      let probe = try SerializedConnection(
        path: path, options: Connection.Options(create: false), label: "tollgate.migrate.probe")
      let (applied, tables) = try probe.readSync { db in
        (try appliedMigrations(db), try db.prepare("SELECT count(*) FROM sqlite_master").rows { $0.int64(at: 0) })
      }
      if let applied {
        try StorageMigration.checkTarget(applied: applied, known: Schema.migrator.identifiers, database: path)
      } else if tables.first ?? 0 > 0 {
        throw StorageMigrationError.targetNotTollgate(path)
      }
    }
    return try TollgateDatabase.open(
      path: path, options: Connection.Options(create: true), label: "tollgate.migrate.target", nowMs: nowMs)
  }

  private static func appliedMigrations(_ db: Connection) throws -> [String]? {
    let hasSchema = try !db.prepare(
      "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'tollgate_migrations'"
    ).rows { $0.int64(at: 0) }.isEmpty
    return hasSchema ? try Migrator.appliedIdentifiers(db) : nil
  }

  /// Runs `body` in one read transaction: every read sees the same snapshot of the file (WAL),
  /// whatever others commit meanwhile.
  static func withSnapshot<Result: Sendable>(
    _ connection: SerializedConnection, _ body: (any CopyReader) async throws -> Result
  ) async throws -> Result {
    // BEGIN DEFERRED takes its snapshot at the first read: read at once so it is taken now.
    try await connection.read { db in
      try db.execute("BEGIN")
      _ = try db.prepare("SELECT count(*) FROM sqlite_master").rows { $0.int64(at: 0) }
    }
    do {
      let result = try await body(SQLiteCopyConnection(connection: connection))
      try await connection.read { try $0.execute("COMMIT") }
      return result
    } catch {
      _ = try? await connection.read { try $0.execute("ROLLBACK") }
      throw error
    }
  }

  /// Runs `body` in one write transaction (`BEGIN IMMEDIATE`): the whole copy commits at once or
  /// not at all. Like `SerializedConnection.write`, it refuses to commit into a file that was
  /// deleted or replaced under it.
  static func withTransaction<Result: Sendable>(
    _ connection: SerializedConnection, _ body: (any CopyWriter) async throws -> Result
  ) async throws -> Result {
    try await connection.read { db in
      if let problem = connection.file.problem() { throw problem }
      try db.execute("BEGIN IMMEDIATE")
    }
    do {
      let result = try await body(SQLiteCopyConnection(connection: connection))
      try await connection.read { db in
        if let problem = connection.file.problem() { throw problem }
        try db.execute("COMMIT")
        if let problem = connection.file.problemAfterCommit() { throw problem }
      }
      return result
    } catch {
      _ = try? await connection.read { try $0.execute("ROLLBACK") }
      throw error
    }
  }
}

/// The reads and writes of the copy on one SQLite connection, inside the transaction the end opened.
struct SQLiteCopyConnection: CopyReader, CopyWriter {
  let connection: SerializedConnection

  func tables() async throws -> Set<String> {
    try await connection.read { db in
      Set(try db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").rows { $0.string(at: 0) })
    }
  }

  func columns(of table: String) async throws -> [String] {
    _ = try StorageCopyTables.quoted(table)  // a plain identifier: safe inside the quotes
    return try await connection.read { db in
      try db.prepare("SELECT name FROM pragma_table_info('\(table)') ORDER BY cid").rows { $0.string(at: 0) }
    }
  }

  func primaryKey(of table: String) async throws -> [String] {
    _ = try StorageCopyTables.quoted(table)
    return try await connection.read { db in
      try db.prepare("SELECT name FROM pragma_table_info('\(table)') WHERE pk > 0 ORDER BY pk").rows {
        $0.string(at: 0)
      }
    }
  }

  func count(_ table: String) async throws -> Int64 {
    let quoted = try StorageCopyTables.quoted(table)
    return try await connection.read { db in
      try db.prepare("SELECT count(*) FROM \(quoted)").rows { $0.int64(at: 0) }.first ?? 0
    }
  }

  func rows(
    _ table: CopiedTable, columns: [String], after: [DatabaseValue]?, limit: Int
  ) async throws -> [[DatabaseValue]] {
    let sql = try StorageCopySQL.select(table, columns: columns, after: after != nil, placeholders: { _ in "?" })
    let arguments = (after ?? []) + [.integer(Int64(limit))]
    return try await connection.read { db in
      try db.prepare(sql).rows(arguments) { row in (0..<row.columnCount).map { row.value(at: $0) } }
    }
  }

  func sequenceHighWater(_ table: CopiedTable) async throws -> Int64? {
    guard table.hasIdKey else { return nil }
    let name = table.name
    return try await connection.read { db in
      let hasSequences = try !db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'").rows {
        $0.int64(at: 0)
      }.isEmpty
      guard hasSequences else { return nil }
      return try db.prepare("SELECT seq FROM sqlite_sequence WHERE name = ?").rows([.text(name)]) { $0.int64(at: 0) }
        .first
    }
  }

  func deleteAll(_ table: String) async throws {
    let quoted = try StorageCopyTables.quoted(table)
    try await connection.read { db in try db.execute("DELETE FROM \(quoted)") }
  }

  func insert(_ table: String, columns: [String], rows: [[DatabaseValue]]) async throws {
    let sql =
      "INSERT INTO \(try StorageCopyTables.quoted(table)) (\(try columns.map(StorageCopyTables.quoted).joined(separator: ", "))) "
      + "VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
    try await connection.read { db in
      let statement = try db.prepare(sql)
      for row in rows {
        try statement.bind(row)
        while try statement.step() {}
      }
      statement.reset()
    }
  }

  /// SQLite hands out `max(rowid) + 1`, which the copied rows already set; an AUTOINCREMENT table
  /// (the change feed) also remembers the highest id it ever gave in `sqlite_sequence`, which
  /// must not fall below the source's (a pruned feed keeps counting where it was).
  func advanceSequence(_ table: CopiedTable, past highest: Int64) async throws {
    let name = table.name
    try await connection.read { db in
      let definition =
        try db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").rows(
          [.text(name)]
        ) { $0.string(at: 0) }.first ?? ""
      guard definition.uppercased().contains("AUTOINCREMENT") else { return }
      try db.execute("UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?", [.integer(highest), .text(name)])
      if db.changes == 0 {
        try db.execute("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", [.text(name), .integer(highest)])
      }
    }
  }
}
