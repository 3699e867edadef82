import PostgresNIO

/// One named step of the schema: the same identifiers as SQLite's migrations (`Schema` in
/// TollgateSQLite), in the same order, each in PostgreSQL's dialect. Append new steps; never edit
/// one that has shipped.
public struct PostgresMigration: Sendable {
  public var identifier: String
  /// The step's statements for a clock reading (`nowMs`, bound where a step writes a time): run in
  /// order, in one transaction with the step's record in `tollgate_migrations`. One SQL statement
  /// each (postgres-nio's extended protocol runs one per query).
  public var statements: @Sendable (_ nowMs: Int64) -> [PostgresQuery]

  public init(_ identifier: String, _ statements: [PostgresQuery]) {
    self.identifier = identifier
    self.statements = { _ in statements }
  }

  public init(_ identifier: String, statements: @escaping @Sendable (_ nowMs: Int64) -> [PostgresQuery]) {
    self.identifier = identifier
    self.statements = statements
  }
}
