import Logging
import PostgresNIO

extension PostgresTollgateDatabase {
  /// The migrations recorded in the database at `location`, in the order they were applied, or
  /// nil when it holds no Tollgate schema, read WITHOUT applying any (`connect` brings a schema up
  /// to date, and a tool that must not change a database it was only asked to read, like
  /// `tollgate migrate-storage` and its source, looks first). One connection, closed on return.
  public static func appliedMigrations(
    _ location: PostgresLocation, environment: [String: String], logger: Logger
  ) async throws -> [String]? {
    let configuration = try Self.configuration(location, environment: environment, maximumConnections: 1)
    var poolLogger = logger
    poolLogger.logLevel = max(logger.logLevel, .error)  // "run() not called yet" races the probe: harmless
    let client = PostgresClient(configuration: configuration, backgroundLogger: poolLogger)
    return try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { await client.run() }
      defer { group.cancelAll() }
      return try await client.withConnection { connection -> [String]? in
        let exists =
          try await connection.query(
            "SELECT to_regclass('tollgate_migrations') IS NOT NULL", logger: logger
          ).collect().first?.decode(Bool.self) ?? false
        guard exists else { return nil }
        var applied: [String] = []
        for try await identifier in try await connection.query(
          "SELECT identifier FROM tollgate_migrations ORDER BY applied_order", logger: logger
        ).decode(String.self) {
          applied.append(identifier)
        }
        return applied
      }
    }
  }
}
