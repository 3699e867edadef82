import Logging
import PostgresNIO

/// What every process does with the schema when it opens a PostgreSQL database: create it when
/// asked, apply the steps this version knows and the database lacks, refuse a schema newer than
/// this version, and read the database's id. Processes that start at once take turns under a
/// session advisory lock (`PostgresLocks.migrations`), so each step is applied once.
enum PostgresSchemaCheck {
  static func prepare(
    client: PostgresClient, location: PostgresLocation, nowMs: Int64, create: Bool, logger: Logger
  ) async throws -> String {
    try await client.withConnection { connection in
      let connection = PostgresSession(connection)
      try await connection.query("SELECT pg_advisory_lock(\(PostgresLocks.migrations))", logger: logger)
      do {
        let databaseId = try await migrate(
          connection, location: location, nowMs: nowMs, create: create, logger: logger)
        try await connection.query("SELECT pg_advisory_unlock(\(PostgresLocks.migrations))", logger: logger)
        return databaseId
      } catch {
        // Best effort: the lock also ends with the connection.
        _ = try? await connection.query("SELECT pg_advisory_unlock(\(PostgresLocks.migrations))", logger: logger)
        throw error
      }
    }
  }

  private static func migrate(
    _ connection: PostgresSession, location: PostgresLocation, nowMs: Int64, create: Bool, logger: Logger
  ) async throws -> String {
    let exists =
      try await connection.query(
        "SELECT to_regclass('tollgate_migrations') IS NOT NULL", logger: logger
      ).collect().first?.decode(Bool.self) ?? false
    if !exists {
      guard create else { throw PostgresStorageError.noTollgateDatabase(location.description) }
      try await connection.query(
        """
        CREATE TABLE tollgate_migrations (
          identifier TEXT PRIMARY KEY NOT NULL,
          applied_order BIGSERIAL NOT NULL,
          applied_at_ms BIGINT NOT NULL
        )
        """, logger: logger)
    }
    var applied: [String] = []
    for try await identifier in try await connection.query(
      "SELECT identifier FROM tollgate_migrations ORDER BY applied_order", logger: logger
    ).decode(String.self) {
      applied.append(identifier)
    }
    let known = PostgresSchema.migrations.map(\.identifier)
    let unknown = applied.filter { !known.contains($0) }
    guard unknown.isEmpty else {
      throw PostgresStorageError.schemaNewer(unknown: unknown, database: location.description)
    }
    for migration in PostgresSchema.migrations where !applied.contains(migration.identifier) {
      try await connection.query("BEGIN", logger: logger)
      do {
        for statement in migration.statements(nowMs) { try await connection.query(statement, logger: logger) }
        try await connection.query(
          "INSERT INTO tollgate_migrations (identifier, applied_at_ms) VALUES (\(migration.identifier), \(nowMs))",
          logger: logger)
        try await connection.query("COMMIT", logger: logger)
      } catch {
        _ = try? await connection.query("ROLLBACK", logger: logger)
        throw PostgresStorageError.migrationFailed(migration.identifier, PostgresStorageError.describe(error))
      }
      logger.info("applied migration", metadata: ["migration": "\(migration.identifier)"])
    }
    let id = try await connection.query("SELECT database_id FROM database_meta WHERE id = 1", logger: logger)
      .collect().first?.decode(String.self)
    guard let id else { throw PostgresStorageError.noTollgateDatabase(location.description) }
    return id
  }
}
