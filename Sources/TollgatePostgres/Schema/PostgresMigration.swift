import PostgresNIO

/// One named step of the schema: the same identifiers as SQLite's migrations (`Schema` in
/// TollgateSQLite), in the same order, each in PostgreSQL's dialect. Append new steps; never edit
/// one that has shipped.
public struct PostgresMigration: Sendable {
  public var identifier: String
  /// Run in order, in one transaction with the step's record in `tollgate_migrations`.
  public var statements: [PostgresQuery]

  public init(_ identifier: String, _ statements: [PostgresQuery]) {
    self.identifier = identifier
    self.statements = statements
  }
}
