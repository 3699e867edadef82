import PostgresNIO
import TollgateSQLite

/// Values between the two databases. SQLite's INTEGER is PostgreSQL's BIGINT, TEXT is TEXT, BLOB
/// is BYTEA, REAL is DOUBLE PRECISION, NULL is NULL: a cell read from PostgreSQL becomes the
/// `DatabaseValue` SQLite would store, and a value is bound as the target column's type wants
/// (SQLite stores any value in any column; PostgreSQL does not).
enum PostgresCopyValues {
  /// A PostgreSQL cell as SQLite would store it.
  static func value(_ cell: PostgresCell, table: String) throws -> DatabaseValue {
    guard cell.bytes != nil else { return .null }
    switch cell.dataType {
    case .int8, .int4, .int2: return .integer(try cell.decode(Int64.self))
    case .bool: return .integer(try cell.decode(Bool.self) ? 1 : 0)
    case .float8, .float4: return .real(try cell.decode(Double.self))
    case .bytea: return .blob(Array(try cell.decode(ByteBuffer.self).readableBytesView))
    case .text, .varchar, .bpchar, .name: return .text(try cell.decode(String.self))
    default:
      throw StorageMigrationError.unsupportedType(table: table, column: cell.columnName, type: "\(cell.dataType)")
    }
  }

  /// `value` bound with its own type (keys read back from the same database).
  static func bindAsIs(_ value: DatabaseValue, into binds: inout PostgresBindings) {
    switch value {
    case .null: binds.appendNull()
    case .integer(let integer): binds.append(integer)
    case .real(let double): binds.append(double)
    case .text(let text): binds.append(text)
    case .blob(let bytes): binds.append(ByteBuffer(bytes: bytes))
    }
  }

  /// `value` bound as a value of the column type `type` (`information_schema.columns.data_type`).
  static func bind(
    _ value: DatabaseValue, as type: String, into binds: inout PostgresBindings, table: String, column: String
  ) throws {
    let refused = StorageMigrationError.unconvertible(table: table, column: column, from: value.kind, to: type)
    switch (value, Kind(type)) {
    case (.null, _):
      binds.appendNull()
    case (.integer(let integer), .integer): binds.append(integer)
    case (.integer(let integer), .boolean): binds.append(integer != 0)
    case (.integer(let integer), .real): binds.append(Double(integer))
    case (.integer(let integer), .text): binds.append(String(integer))
    case (.real(let double), .real): binds.append(double)
    case (.real(let double), .integer):
      guard double.rounded() == double, let integer = Int64(exactly: double) else { throw refused }
      binds.append(integer)
    case (.real(let double), .text): binds.append("\(double)")
    case (.text(let text), .text): binds.append(text)
    case (.text(let text), .bytes): binds.append(ByteBuffer(string: text))
    case (.text(let text), .integer):
      guard let integer = Int64(text) else { throw refused }
      binds.append(integer)
    case (.text(let text), .real):
      guard let double = Double(text) else { throw refused }
      binds.append(double)
    case (.blob(let bytes), .bytes): binds.append(ByteBuffer(bytes: bytes))
    case (.blob(let bytes), .text):
      guard let text = String(validating: bytes, as: UTF8.self) else { throw refused }
      binds.append(text)
    default:
      throw refused
    }
  }

  private enum Kind {
    case integer, boolean, real, text, bytes, other

    init(_ type: String) {
      switch type {
      case "bigint", "integer", "smallint": self = .integer
      case "boolean": self = .boolean
      case "double precision", "real", "numeric": self = .real
      case "text", "character varying", "character": self = .text
      case "bytea": self = .bytes
      default: self = .other
      }
    }
  }
}

extension DatabaseValue {
  /// The value's kind, for messages (never the value: it may be a receipt or a token).
  var kind: String {
    switch self {
    case .null: "NULL"
    case .integer: "INTEGER"
    case .real: "REAL"
    case .text: "TEXT"
    case .blob: "BLOB"
    }
  }
}
