import PostgresNIO

/// Why a PostgreSQL storage cannot be opened or used, in words an operator can act on. Never
/// holds a password or the statement's parameters.
public enum PostgresStorageError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The database exists but holds no Tollgate schema, and the process was not asked to create it.
  case noTollgateDatabase(String)
  /// The database has migrations this version does not know: a newer Tollgate upgraded it.
  case schemaNewer(unknown: [String], database: String)
  /// A migration step failed; the database is left at the step before it.
  case migrationFailed(String, String)
  /// A stored value this version cannot read.
  case undecodable(String)

  public var description: String {
    switch self {
    case .noTollgateDatabase(let database):
      "no Tollgate database at \(database): pass --create (or let the worker create it)"
    case .schemaNewer(let unknown, let database):
      "the database \(database) was upgraded by a newer Tollgate (migrations \(unknown.joined(separator: ", ")) unknown to this version): run the newer version"
    case .migrationFailed(let identifier, let reason):
      "migration \(identifier) failed: \(reason)"
    case .undecodable(let what):
      "a stored value cannot be read: \(what)"
    }
  }

  /// A PostgreSQL error in a line for logs and messages: the server's SQLSTATE and message, or
  /// the client's error kind. Never the query's parameters.
  public static func describe(_ error: any Error) -> String {
    if let error = error as? PSQLError {
      if let state = error.serverInfo?[.sqlState], let message = error.serverInfo?[.message] {
        return "\(message) (SQLSTATE \(state))"
      }
      return "\(error.code)"
    }
    return "\(error)"
  }

  /// The SQLSTATE of a server error, nil for anything else.
  public static func sqlState(_ error: any Error) -> String? {
    (error as? PSQLError)?.serverInfo?[.sqlState]
  }
}
