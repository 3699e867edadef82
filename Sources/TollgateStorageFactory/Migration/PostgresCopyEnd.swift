import Logging
import PostgresNIO
import TollgatePostgres
import TollgateSQLite

/// A PostgreSQL database as either end of `tollgate migrate-storage`, on `PostgresTollgateDatabase`
/// (a pool of one connection: the copy is one transaction on each side).
enum PostgresCopyEnd {
  static var known: [String] { PostgresSchema.migrations.map(\.identifier) }

  /// Runs `body` in one REPEATABLE READ, READ ONLY transaction on the source: one snapshot for
  /// every table, whatever others commit meanwhile. The source must be at this version's schema:
  /// its migrations are read first, and it is opened only when there is none to apply.
  static func withSnapshot<Result: Sendable>(
    _ location: PostgresLocation, environment: [String: String], nowMs: Int64, logger: Logger,
    _ body: (any CopyReader) async throws -> Result
  ) async throws -> Result {
    try await PostgresTollgateDatabase.reach(location, environment: environment, logger: logger)
    guard
      let applied = try await PostgresTollgateDatabase.appliedMigrations(
        location, environment: environment, logger: logger)
    else { throw StorageMigrationError.sourceNotTollgate(location.description) }
    try StorageMigration.checkSource(applied: applied, known: known, database: location.description)
    return try await PostgresTollgateDatabase.open(
      location, environment: environment, nowMs: nowMs, create: false, maximumConnections: 1, logger: logger
    ) { database in
      try await database.transaction { connection in
        try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
        return try await body(PostgresCopyConnection(connection: connection, logger: logger))
      }
    }
  }

  /// Runs `body` in one transaction on the target, created with this version's schema when it
  /// has none; a target with a schema must be at this version's.
  static func withTransaction<Result: Sendable>(
    _ location: PostgresLocation, environment: [String: String], nowMs: Int64, logger: Logger,
    _ body: (any CopyWriter) async throws -> Result
  ) async throws -> Result {
    try await PostgresTollgateDatabase.reach(location, environment: environment, logger: logger)
    let applied = try await PostgresTollgateDatabase.appliedMigrations(
      location, environment: environment, logger: logger)
    if let applied {
      try StorageMigration.checkTarget(applied: applied, known: known, database: location.description)
    }
    return try await PostgresTollgateDatabase.open(
      location, environment: environment, nowMs: nowMs, create: applied == nil, maximumConnections: 1, logger: logger
    ) { database in
      try await database.transaction { connection in
        try await body(PostgresCopyConnection(connection: connection, logger: logger))
      }
    }
  }
}

/// The reads and writes of the copy on one PostgreSQL connection, inside the transaction its end
/// opened. Table and column names are plain identifiers (`StorageCopyTables.quoted`) written into
/// the SQL; every value is bound.
struct PostgresCopyConnection: CopyReader, CopyWriter {
  let connection: PostgresSession
  let logger: Logger

  /// Bound parameters per INSERT statement (PostgreSQL's limit is 65,535).
  static let parametersPerStatement = 30_000

  func tables() async throws -> Set<String> {
    let rows = try await connection.query(
      """
      SELECT table_name::text FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
      """, logger: logger)
    var tables: Set<String> = []
    for try await name in rows.decode(String.self) { tables.insert(name) }
    return tables
  }

  func columns(of table: String) async throws -> [String] {
    try await columnTypes(of: table).map(\.name)
  }

  /// The table's columns in order, with their types (`bigint`, `text`, `bytea`, …).
  func columnTypes(of table: String) async throws -> [(name: String, type: String)] {
    let rows = try await connection.query(
      """
      SELECT column_name::text, data_type::text FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = \(table) ORDER BY ordinal_position
      """, logger: logger)
    var columns: [(name: String, type: String)] = []
    for try await (name, type) in rows.decode((String, String).self) { columns.append((name, type)) }
    return columns
  }

  func primaryKey(of table: String) async throws -> [String] {
    let name = try StorageCopyTables.quoted(table)
    let rows = try await connection.query(
      """
      SELECT a.attname::text FROM pg_index i
      JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
      WHERE i.indrelid = \(name)::regclass AND i.indisprimary
      ORDER BY array_position(i.indkey::int2[], a.attnum)
      """, logger: logger)
    var key: [String] = []
    for try await column in rows.decode(String.self) { key.append(column) }
    return key
  }

  func count(_ table: String) async throws -> Int64 {
    let sql = "SELECT count(*) FROM \(try StorageCopyTables.quoted(table))"
    return try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect().first?.decode(
      Int64.self) ?? 0
  }

  func rows(
    _ table: CopiedTable, columns: [String], after: [DatabaseValue]?, limit: Int
  ) async throws -> [[DatabaseValue]] {
    let sql = try StorageCopySQL.select(table, columns: columns, after: after != nil, placeholders: { "$\($0)" })
    var binds = PostgresBindings()
    for value in after ?? [] { PostgresCopyValues.bindAsIs(value, into: &binds) }
    binds.append(Int64(limit))
    var result: [[DatabaseValue]] = []
    result.reserveCapacity(limit)
    // A batch is `limit` rows; read through a cursor, the raw rows are not held beside the values.
    try await connection.forEachRow(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger) { row in
      result.append(try row.map { try PostgresCopyValues.value($0, table: table.name) })
    }
    return result
  }

  func sequenceHighWater(_ table: CopiedTable) async throws -> Int64? {
    guard table.hasIdKey, let sequence = try await sequence(of: table) else { return nil }
    return try await connection.query(
      "SELECT pg_sequence_last_value(\(sequence)::regclass)", logger: logger
    ).collect().first?.decode(Int64?.self)
  }

  /// The identity sequence of the table's id column, nil when it has none.
  private func sequence(of table: CopiedTable) async throws -> String? {
    let name = try StorageCopyTables.quoted(table.name)
    return try await connection.query(
      "SELECT pg_get_serial_sequence(\(name), \(table.key[0]))", logger: logger
    ).collect().first?.decode(String?.self)
  }

  func deleteAll(_ table: String) async throws {
    try await connection.query(
      PostgresQuery(unsafeSQL: "DELETE FROM \(try StorageCopyTables.quoted(table))"), logger: logger)
  }

  func insert(_ table: String, columns: [String], rows: [[DatabaseValue]]) async throws {
    let types = Dictionary(try await columnTypes(of: table).map { ($0.name, $0.type) }, uniquingKeysWith: { a, _ in a })
    let columnTypes = columns.map { types[$0] ?? "" }
    let head =
      "INSERT INTO \(try StorageCopyTables.quoted(table)) (\(try columns.map(StorageCopyTables.quoted).joined(separator: ", "))) VALUES "
    let perStatement = max(1, Self.parametersPerStatement / max(1, columns.count))
    var start = 0
    while start < rows.count {
      let chunk = rows[start..<min(rows.count, start + perStatement)]
      var binds = PostgresBindings(capacity: chunk.count * columns.count)
      var tuples: [String] = []
      tuples.reserveCapacity(chunk.count)
      for row in chunk {
        let first = binds.count
        for (index, value) in row.enumerated() {
          try PostgresCopyValues.bind(
            value, as: columnTypes[index], into: &binds, table: table, column: columns[index])
        }
        tuples.append("(" + (1...row.count).map { "$\(first + $0)" }.joined(separator: ", ") + ")")
      }
      try await connection.query(
        PostgresQuery(unsafeSQL: head + tuples.joined(separator: ", "), binds: binds), logger: logger)
      start += chunk.count
    }
  }

  /// Moves the id column's identity sequence so its next value is above `highest` (never back).
  func advanceSequence(_ table: CopiedTable, past highest: Int64) async throws {
    guard let sequence = try await sequence(of: table) else { return }
    try await connection.query(
      """
      SELECT setval(\(sequence)::regclass, GREATEST(\(highest), COALESCE(pg_sequence_last_value(\(sequence)::regclass), 0)), true)
      """, logger: logger)
  }
}
