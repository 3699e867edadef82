/// Why `tollgate migrate-storage` copied nothing (or stopped and rolled its copy back): each
/// message names the database (never a password) and says what to do.
public enum StorageMigrationError: Error, Sendable, Hashable, CustomStringConvertible {
  /// `--from` and `--to` name the same database.
  case sameDatabase(String)
  /// The source holds no Tollgate schema (or no database at all).
  case sourceNotTollgate(String)
  /// The source lacks migrations this version knows: it was last opened by an older Tollgate.
  case sourceOlder(String, missing: [String])
  /// A database has migrations this version does not know: a newer Tollgate upgraded it.
  case newer(String, unknown: [String])
  /// The target has part of the schema only, or a file that is no Tollgate database.
  case targetOlder(String, missing: [String])
  case targetNotTollgate(String)
  /// The target already holds Tollgate data: the tables with rows, and how many.
  case targetNotEmpty(String, [TableRows])
  /// A table the copy cannot read in batches (it has no primary key).
  case unknownTable(String, database: String)
  /// A table one database lacks and the other has.
  case missingTable(String, database: String)
  /// A table whose columns differ between the two databases.
  case columnsDiffer(String, source: [String], target: [String])
  /// A value the target's column type cannot hold (a text that is no number for a BIGINT column).
  case unconvertible(table: String, column: String, from: String, to: String)
  /// A column of a type the copy does not know.
  case unsupportedType(table: String, column: String, type: String)
  /// A table or column name that is not a plain identifier.
  case unexpectedName(String)
  /// After the copy a table of the target does not hold as many rows as the source's snapshot.
  case countMismatch(String, source: Int64, target: Int64)

  public struct TableRows: Sendable, Hashable {
    public var table: String
    public var rows: Int64

    public init(table: String, rows: Int64) {
      self.table = table
      self.rows = rows
    }
  }

  public var description: String {
    switch self {
    case .sameDatabase(let database):
      "--from and --to are the same database (\(database)): give another target"
    case .sourceNotTollgate(let database):
      "the source \(database) is not a Tollgate database (no Tollgate schema): check --from"
    case .sourceOlder(let database, let missing):
      "the source \(database) was last opened by an older Tollgate (it lacks migrations \(Self.list(missing))); "
        + "migrate-storage never upgrades its source: start this version's `tollgate worker` on it once "
        + "(it applies the migrations), stop it, then run migrate-storage again"
    case .newer(let database, let unknown):
      "the database \(database) was upgraded by a newer Tollgate (migrations \(Self.list(unknown)) unknown to "
        + "this version): run migrate-storage of that version"
    case .targetOlder(let database, let missing):
      "the target \(database) has an older Tollgate schema (it lacks migrations \(Self.list(missing))): "
        + "give an empty database, or upgrade it first by starting this version's worker on it once"
    case .targetNotTollgate(let database):
      "the target \(database) holds something that is not a Tollgate database: give a new file or an empty database"
    case .targetNotEmpty(let database, let tables):
      "the target \(database) already holds Tollgate data ("
        + tables.map { "\($0.table): \($0.rows) rows" }.joined(separator: ", ")
        + "); migrate-storage copies into an empty database only, and changed nothing"
    case .unknownTable(let table, let database):
      "\(database) has a table \(table) without a primary key, which migrate-storage cannot copy in batches"
    case .missingTable(let table, let database):
      "\(database) has no table \(table), which the other database has at the same schema version"
    case .columnsDiffer(let table, let source, let target):
      "the table \(table) has columns \(Self.list(source)) on the source and \(Self.list(target)) on the target"
    case .unconvertible(let table, let column, let from, let to):
      "\(table).\(column) holds a \(from) value the target's \(to) column cannot hold"
    case .unsupportedType(let table, let column, let type):
      "\(table).\(column) has the type \(type), which migrate-storage does not copy"
    case .unexpectedName(let name):
      "unexpected table or column name \(name)"
    case .countMismatch(let table, let source, let target):
      "after the copy \(table) holds \(target) rows where the source holds \(source): the copy was rolled back"
    }
  }

  private static func list(_ names: [String]) -> String { names.joined(separator: ", ") }
}

/// One table copied: its name and its rows (the source's count, checked on the target).
public struct StorageMigrationTable: Sendable, Hashable {
  public var table: String
  public var rows: Int64
}

/// What a finished copy did.
public struct StorageMigrationReport: Sendable, Hashable {
  /// Every table, in the order copied, with its row count (the same on both sides).
  public var tables: [StorageMigrationTable]
  /// The database id the target now has (the source's).
  public var databaseId: String?
  /// Signs that a worker was running on the source when its snapshot was taken (a fresh lease):
  /// what it wrote after the snapshot is not in the copy.
  public var warnings: [String]
}

/// Progress of one table, reported after each batch: `copied` of `total` rows.
public struct StorageMigrationProgress: Sendable, Hashable {
  public var table: String
  public var copied: Int64
  public var total: Int64
}
