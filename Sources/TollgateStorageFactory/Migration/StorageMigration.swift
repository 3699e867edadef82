import Logging
import TollgatePostgres
import TollgateSQLite

/// The reads of a copy's source, all inside one snapshot (`withSnapshot` of its end).
protocol CopyReader: Sendable {
  func tables() async throws -> Set<String>
  func columns(of table: String) async throws -> [String]
  func count(_ table: String) async throws -> Int64
  /// Up to `limit` rows of `columns`, in key order, from after the key `after` (nil: the first).
  func rows(_ table: CopiedTable, columns: [String], after: [DatabaseValue]?, limit: Int) async throws
    -> [[DatabaseValue]]
  /// The highest id the table's id sequence ever handed out, when the database keeps one apart
  /// from the rows (SQLite's AUTOINCREMENT, a PostgreSQL identity): nil otherwise.
  func sequenceHighWater(_ table: CopiedTable) async throws -> Int64?
  /// The table's primary key columns, in key order (empty: none).
  func primaryKey(of table: String) async throws -> [String]
}

/// The writes of a copy's target, all inside one transaction (`withTransaction` of its end).
protocol CopyWriter: Sendable {
  func tables() async throws -> Set<String>
  func columns(of table: String) async throws -> [String]
  func count(_ table: String) async throws -> Int64
  func deleteAll(_ table: String) async throws
  func insert(_ table: String, columns: [String], rows: [[DatabaseValue]]) async throws
  /// Makes the table's next id handed out greater than `highest`.
  func advanceSequence(_ table: CopiedTable, past highest: Int64) async throws
}

/// `tollgate migrate-storage`: copies every table of one Tollgate database into another, either
/// database SQLite or PostgreSQL.
///
/// - Both ends must hold exactly the migrations this version knows (the source is never upgraded
///   in place; a target with no schema is created with this version's).
/// - The target must hold no Tollgate data: no row in any table (the one row a new schema writes
///   in `database_meta` aside). It is replaced by the source's, so the copy keeps the database id.
/// - The source is read in one snapshot (SQLite: one read transaction; PostgreSQL: one REPEATABLE
///   READ, READ ONLY transaction), table by table in foreign-key order, in batches by primary key:
///   never a whole table in memory.
/// - The target is written in one transaction: rows with their ids, then each id sequence moved
///   past the highest id copied (or the source's sequence, if higher), then every table's count
///   checked against the source's; any mismatch or error rolls the whole copy back.
public enum StorageMigration {
  /// Copies `source` into `target`. `progress` is called after each batch of each table.
  public static func run(
    from source: StorageLocation, to target: StorageLocation, environment: [String: String], nowMs: Int64,
    batchSize: Int = 1_000, logger: Logger, progress: @Sendable (StorageMigrationProgress) -> Void
  ) async throws -> StorageMigrationReport {
    try checkDistinct(source, target)
    return try await withSource(source, environment: environment, nowMs: nowMs, logger: logger) { reader in
      try await withTarget(target, environment: environment, nowMs: nowMs, logger: logger) { writer in
        try await copy(
          from: reader, to: writer, source: source.description, target: target.description, nowMs: nowMs,
          batchSize: max(1, batchSize), progress: progress)
      }
    }
  }

  private static func checkDistinct(_ source: StorageLocation, _ target: StorageLocation) throws {
    switch (source, target) {
    case (.sqlite(let from), .sqlite(let to)):
      let same = from == to || (FileIdentity.of(path: from).map { $0 == FileIdentity.of(path: to) } ?? false)
      if same { throw StorageMigrationError.sameDatabase(to) }
    case (.postgres(let from), .postgres(let to)):
      if from.endpoint == to.endpoint, from.database == to.database {
        throw StorageMigrationError.sameDatabase(to.description)
      }
    default: break
    }
  }

  private static func withSource<Result: Sendable>(
    _ location: StorageLocation, environment: [String: String], nowMs: Int64, logger: Logger,
    _ body: (any CopyReader) async throws -> Result
  ) async throws -> Result {
    switch location {
    case .sqlite(let path):
      return try await SQLiteCopyEnd.withSnapshot(try SQLiteCopyEnd.openSource(path: path), body)
    case .postgres(let postgres):
      return try await PostgresCopyEnd.withSnapshot(
        postgres, environment: environment, nowMs: nowMs, logger: logger, body)
    }
  }

  private static func withTarget<Result: Sendable>(
    _ location: StorageLocation, environment: [String: String], nowMs: Int64, logger: Logger,
    _ body: (any CopyWriter) async throws -> Result
  ) async throws -> Result {
    switch location {
    case .sqlite(let path):
      return try await SQLiteCopyEnd.withTransaction(try SQLiteCopyEnd.openTarget(path: path, nowMs: nowMs), body)
    case .postgres(let postgres):
      return try await PostgresCopyEnd.withTransaction(
        postgres, environment: environment, nowMs: nowMs, logger: logger, body)
    }
  }

  static func checkSource(applied: [String], known: [String], database: String) throws(StorageMigrationError) {
    let unknown = applied.filter { !known.contains($0) }
    guard unknown.isEmpty else { throw .newer(database, unknown: unknown) }
    let missing = known.filter { !applied.contains($0) }
    guard missing.isEmpty else { throw .sourceOlder(database, missing: missing) }
  }

  /// A target that has a schema must have this version's (an empty one is created by opening it).
  static func checkTarget(applied: [String], known: [String], database: String) throws(StorageMigrationError) {
    let unknown = applied.filter { !known.contains($0) }
    guard unknown.isEmpty else { throw .newer(database, unknown: unknown) }
    let missing = known.filter { !applied.contains($0) }
    guard missing.isEmpty else { throw .targetOlder(database, missing: missing) }
  }

  static func copy(
    from reader: any CopyReader, to writer: any CopyWriter, source: String, target: String, nowMs: Int64,
    batchSize: Int, progress: @Sendable (StorageMigrationProgress) -> Void
  ) async throws -> StorageMigrationReport {
    let tables = try await copiedTables(reader, writer, source: source, target: target)
    var occupied: [StorageMigrationError.TableRows] = []
    for table in tables where table.name != StorageCopyTables.meta {
      let rows = try await writer.count(table.name)
      if rows > 0 { occupied.append(.init(table: table.name, rows: rows)) }
    }
    guard occupied.isEmpty else { throw StorageMigrationError.targetNotEmpty(target, occupied) }

    var copied: [StorageMigrationTable] = []
    var databaseId: String?
    for table in tables {
      let columns = try await reader.columns(of: table.name)
      let targetColumns = try await writer.columns(of: table.name)
      guard Set(columns) == Set(targetColumns), columns.count == targetColumns.count else {
        throw StorageMigrationError.columnsDiffer(table.name, source: columns, target: targetColumns)
      }
      let keyIndexes = try table.key.map { key in
        guard let index = columns.firstIndex(of: key) else {
          throw StorageMigrationError.columnsDiffer(table.name, source: columns, target: table.key)
        }
        return index
      }
      if table.name == StorageCopyTables.meta { try await writer.deleteAll(table.name) }
      let total = try await reader.count(table.name)
      progress(StorageMigrationProgress(table: table.name, copied: 0, total: total))
      var count: Int64 = 0
      var highestId: Int64 = 0
      var after: [DatabaseValue]?
      while true {
        let rows = try await reader.rows(table, columns: columns, after: after, limit: batchSize)
        guard let last = rows.last else { break }
        try await writer.insert(table.name, columns: columns, rows: rows)
        count += Int64(rows.count)
        after = keyIndexes.map { last[$0] }
        if table.hasIdKey, case .integer(let id) = last[keyIndexes[0]] { highestId = max(highestId, id) }
        if table.name == StorageCopyTables.meta, let index = columns.firstIndex(of: "database_id"),
          case .text(let id) = last[index]
        {
          databaseId = id
        }
        progress(StorageMigrationProgress(table: table.name, copied: count, total: total))
        if rows.count < batchSize { break }
      }
      // The snapshot's count and the rows read from it agree unless a batch skipped some.
      guard count == total else { throw StorageMigrationError.countMismatch(table.name, source: total, target: count) }
      if table.hasIdKey {
        let highest = max(highestId, try await reader.sequenceHighWater(table) ?? 0)
        if highest > 0 { try await writer.advanceSequence(table, past: highest) }
      }
      copied.append(StorageMigrationTable(table: table.name, rows: total))
    }
    // Counted again once everything is in: what the target holds now, table by table.
    for table in copied {
      let rows = try await writer.count(table.table)
      guard rows == table.rows else {
        throw StorageMigrationError.countMismatch(table.table, source: table.rows, target: rows)
      }
    }
    return StorageMigrationReport(
      tables: copied, databaseId: databaseId, warnings: try await liveWorkerSigns(reader, nowMs: nowMs))
  }

  /// The tables to copy, in order: those of `StorageCopyTables.all` (in foreign-key order), then
  /// any other table both databases have (a table a later migration added and the list lacks),
  /// by name, keyed by its primary key. Both databases must have the same tables.
  private static func copiedTables(
    _ reader: any CopyReader, _ writer: any CopyWriter, source: String, target: String
  ) async throws -> [CopiedTable] {
    let sourceTables = try await reader.tables().filter { !StorageCopyTables.isBookkeeping($0) }
    let targetTables = try await writer.tables().filter { !StorageCopyTables.isBookkeeping($0) }
    if let extra = sourceTables.subtracting(targetTables).sorted().first {
      throw StorageMigrationError.missingTable(extra, database: target)
    }
    if let extra = targetTables.subtracting(sourceTables).sorted().first {
      throw StorageMigrationError.missingTable(extra, database: source)
    }
    var tables: [CopiedTable] = []
    for table in StorageCopyTables.all {
      guard sourceTables.contains(table.name) else {
        throw StorageMigrationError.missingTable(table.name, database: source)
      }
      tables.append(table)
    }
    let listed = Set(StorageCopyTables.all.map(\.name))
    for name in sourceTables.subtracting(listed).sorted() {
      let key = try await reader.primaryKey(of: name)
      guard !key.isEmpty else { throw StorageMigrationError.unknownTable(name, database: source) }
      tables.append(CopiedTable(name, key: key))
    }
    return tables
  }

  /// A worker lease or job lease still held at `nowMs`: a worker was probably running when the
  /// snapshot was taken, and what it wrote since is not in the copy.
  private static func liveWorkerSigns(_ reader: any CopyReader, nowMs: Int64) async throws -> [String] {
    var signs: [String] = []
    let lease = try await reader.rows(
      CopiedTable("worker_lease", key: ["id"]), columns: ["id", "heartbeat_at_ms"], after: nil, limit: 1)
    if let row = lease.first, case .integer(let heartbeat) = row[1], nowMs - heartbeat < 60_000 {
      signs.append("the worker lease's heartbeat is \(max(0, nowMs - heartbeat)) ms old")
    }
    let jobs = try await reader.rows(
      CopiedTable("job_leases", key: ["name"]), columns: ["name", "owner_id", "expires_at_ms"], after: nil,
      limit: 1_000)
    let held = jobs.filter { row in
      guard case .text(let owner) = row[1], !owner.isEmpty, case .integer(let expires) = row[2] else { return false }
      return expires > nowMs
    }
    if !held.isEmpty { signs.append("\(held.count) job leases are held") }
    return signs
  }
}

/// The SELECT of one batch, for either database (`placeholder(n)` is its n-th parameter, from 1).
enum StorageCopySQL {
  static func select(
    _ table: CopiedTable, columns: [String], after: Bool, placeholders placeholder: (Int) -> String
  ) throws -> String {
    let keys = try table.key.map(StorageCopyTables.quoted)
    var sql = "SELECT \(try columns.map(StorageCopyTables.quoted).joined(separator: ", ")) FROM "
    sql += try StorageCopyTables.quoted(table.name)
    var next = 1
    if after {
      let values = keys.indices.map { placeholder($0 + 1) }
      next += keys.count
      sql +=
        keys.count == 1
        ? " WHERE \(keys[0]) > \(values[0])"
        : " WHERE (\(keys.joined(separator: ", "))) > (\(values.joined(separator: ", ")))"
    }
    sql += " ORDER BY \(keys.joined(separator: ", ")) LIMIT \(placeholder(next))"
    return sql
  }
}
