import Logging
import PostgresNIO
import TollgatePostgres
import TollgateSQLite

/// A schema as both databases can describe it: tables with their columns (type, NOT NULL, a
/// default) and primary keys, indexes (named ones by name, those behind UNIQUE constraints by
/// their columns) and foreign keys. Read from SQLite's PRAGMAs and from PostgreSQL's catalogs, so
/// that `PostgresSchemaTests` can hold one against the other.
struct SchemaShape: Equatable, CustomStringConvertible {
  struct Column: Hashable, Comparable, CustomStringConvertible {
    var table: String
    var name: String
    /// SQLite's declared type: INTEGER, TEXT, BLOB, REAL (PostgreSQL's mapped back).
    var type: String
    var notNull: Bool
    /// A default value (not counting an id the database generates).
    var hasDefault: Bool

    static func < (lhs: Column, rhs: Column) -> Bool { (lhs.table, lhs.name) < (rhs.table, rhs.name) }
    var description: String {
      "\(table).\(name) \(type)\(notNull ? " NOT NULL" : "")\(hasDefault ? " DEFAULT" : "")"
    }
  }

  struct Index: Hashable, Comparable, CustomStringConvertible {
    var table: String
    /// nil for the index behind a UNIQUE constraint (SQLite names those itself).
    var name: String?
    var columns: [String]
    var unique: Bool
    var partial: Bool

    var key: String { "\(table) \(name ?? "") \(columns.joined(separator: ","))" }
    static func < (lhs: Index, rhs: Index) -> Bool { lhs.key < rhs.key }
    var description: String {
      "\(unique ? "UNIQUE " : "")\(name ?? "(constraint)") ON \(table)(\(columns.joined(separator: ", ")))"
        + (partial ? " WHERE …" : "")
    }
  }

  struct ForeignKey: Hashable, Comparable, CustomStringConvertible {
    var table: String
    var column: String
    var references: String
    var onDelete: String

    static func < (lhs: ForeignKey, rhs: ForeignKey) -> Bool { lhs.description < rhs.description }
    var description: String { "\(table).\(column) → \(references) ON DELETE \(onDelete)" }
  }

  var tables: [String] = []
  var columns: [Column] = []
  /// "table: column, column" per table with a primary key.
  var primaryKeys: [String] = []
  var indexes: [Index] = []
  var foreignKeys: [ForeignKey] = []
  /// "table: N" per table with CHECK constraints (their expressions are each dialect's own).
  var checks: [String] = []

  var description: String {
    (["tables: \(tables.joined(separator: ", "))"] + columns.map(\.description) + primaryKeys.map { "PK \($0)" }
      + indexes.map(\.description) + foreignKeys.map(\.description) + checks.map { "CHECK \($0)" })
      .joined(separator: "\n")
  }

  mutating func sort() {
    tables.sort()
    columns.sort()
    primaryKeys.sort()
    indexes.sort()
    foreignKeys.sort()
    checks.sort()
  }

  /// The schema of an SQLite database.
  static func of(sqlite db: Connection) throws -> SchemaShape {
    var shape = SchemaShape()
    shape.tables = try db.prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    ).rows { $0.string(at: 0) }
    for (table, sql) in try db.prepare(
      "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    ).rows([], { ($0.string(at: 0), $0.string(at: 1)) }) {
      // SQLite keeps each table's CREATE statement, columns added later included (a column named
      // check_… is no constraint: the keyword is followed by its parenthesis).
      let upper = sql.uppercased()
      let count = ["CHECK (", "CHECK("].map { upper.components(separatedBy: $0).count - 1 }.reduce(0, +)
      if count > 0 { shape.checks.append("\(table): \(count)") }
    }
    for table in shape.tables {
      var key: [(Int64, String)] = []
      for (name, type, notNull, hasDefault, pk) in try db.prepare("PRAGMA table_info(\(table))").rows(
        [],
        {
          ($0.string(at: 1), $0.string(at: 2).uppercased(), $0.bool(at: 3), !$0.isNull(at: 4), $0.int64(at: 5))
        })
      {
        // A key column is never NULL (a rowid alias, or a WITHOUT ROWID table's key).
        shape.columns.append(
          Column(table: table, name: name, type: type, notNull: notNull || pk > 0, hasDefault: hasDefault))
        if pk > 0 { key.append((pk, name)) }
      }
      if !key.isEmpty {
        shape.primaryKeys.append("\(table): \(key.sorted { $0.0 < $1.0 }.map(\.1).joined(separator: ", "))")
      }
      for (name, unique, origin, partial) in try db.prepare("PRAGMA index_list(\(table))").rows(
        [],
        {
          ($0.string(at: 1), $0.bool(at: 2), $0.string(at: 3), $0.bool(at: 4))
        }) where origin != "pk"
      {
        let columns = try db.prepare("PRAGMA index_info(\(name))").rows { ($0.int64(at: 0), $0.string(at: 2)) }
          .sorted { $0.0 < $1.0 }.map(\.1)
        shape.indexes.append(
          Index(table: table, name: origin == "c" ? name : nil, columns: columns, unique: unique, partial: partial))
      }
      for (references, column, onDelete) in try db.prepare("PRAGMA foreign_key_list(\(table))").rows(
        [],
        {
          ($0.string(at: 2), $0.string(at: 3), $0.string(at: 6))
        })
      {
        shape.foreignKeys.append(ForeignKey(table: table, column: column, references: references, onDelete: onDelete))
      }
    }
    shape.sort()
    return shape
  }

  /// The schema of a PostgreSQL database (its current schema, `public`). `tollgate_migrations`'
  /// `applied_order` (the order of the records, which SQLite keeps as the rowid) is left out.
  static func of(postgres db: PostgresTollgateDatabase) async throws -> SchemaShape {
    var shape = SchemaShape()
    for row in try await db.query(
      "SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema()")
    {
      shape.tables.append(try row.decode(String.self))
    }
    let sqliteType = ["bigint": "INTEGER", "text": "TEXT", "bytea": "BLOB", "double precision": "REAL"]
    for row in try await db.query(
      """
      SELECT table_name::text, column_name::text, data_type::text, is_nullable::text, column_default IS NOT NULL
      FROM information_schema.columns WHERE table_schema = current_schema()
      """)
    {
      let (table, name, type, nullable, hasDefault) = try row.decode((String, String, String, String, Bool).self)
      if table == "tollgate_migrations", name == "applied_order" { continue }
      shape.columns.append(
        Column(
          table: table, name: name, type: sqliteType[type] ?? type, notNull: nullable == "NO", hasDefault: hasDefault))
    }
    for row in try await db.query(
      """
      SELECT t.relname::text, i.relname::text, x.indisunique, x.indisprimary, x.indpred IS NOT NULL,
        EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid AND c.contype = 'u'),
        array_to_string(ARRAY(
          SELECT a.attname FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)
          JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum ORDER BY k.n), ',')
      FROM pg_index x
      JOIN pg_class i ON i.oid = x.indexrelid
      JOIN pg_class t ON t.oid = x.indrelid
      JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = current_schema()
      """)
    {
      let (table, name, unique, primary, partial, constraint, columns) = try row.decode(
        (String, String, Bool, Bool, Bool, Bool, String).self)
      let list = columns.split(separator: ",").map(String.init)
      if primary {
        shape.primaryKeys.append("\(table): \(list.joined(separator: ", "))")
      } else {
        shape.indexes.append(
          Index(table: table, name: constraint ? nil : name, columns: list, unique: unique, partial: partial))
      }
    }
    let actions = ["a": "NO ACTION", "r": "RESTRICT", "c": "CASCADE", "n": "SET NULL", "d": "SET DEFAULT"]
    for row in try await db.query(
      """
      SELECT c.conrelid::regclass::text, a.attname::text, c.confrelid::regclass::text, c.confdeltype::text
      FROM pg_constraint c
      JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
      WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace
      """)
    {
      let (table, column, references, onDelete) = try row.decode((String, String, String, String).self)
      shape.foreignKeys.append(
        ForeignKey(table: table, column: column, references: references, onDelete: actions[onDelete] ?? onDelete))
    }
    for row in try await db.query(
      """
      SELECT conrelid::regclass::text, count(*) FROM pg_constraint
      WHERE contype = 'c' AND connamespace = current_schema()::regnamespace GROUP BY 1
      """)
    {
      let (table, count) = try row.decode((String, Int64).self)
      shape.checks.append("\(table): \(count)")
    }
    shape.sort()
    return shape
  }
}
