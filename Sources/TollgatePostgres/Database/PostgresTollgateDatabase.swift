import Logging
import NIOSSL
import PostgresNIO

/// One process's way into a PostgreSQL database: the connection pool (postgres-nio's
/// `PostgresClient`), transactions on it, and the schema check at open. Every Tollgate storage on
/// PostgreSQL (the service's, the worker's) works through one.
///
/// The pool runs in one task the database owns (`runner`): started by `connect`, cancelled by
/// `close()` and awaited by `closed()`; `open(…)` does all three around a body. Not a
/// fire-and-forget task: nothing outlives the database's owner, which closes it.
public final class PostgresTollgateDatabase: Sendable {
  public let location: PostgresLocation
  public let logger: Logger
  let client: PostgresClient
  private let runner: Task<Void, Never>
  /// The id of this database (`database_meta.database_id`), set once when it was created: tells a
  /// replaced or restored database from the one a follower knew.
  public let databaseId: String

  private init(
    location: PostgresLocation, client: PostgresClient, runner: Task<Void, Never>, databaseId: String,
    logger: Logger
  ) {
    self.location = location
    self.client = client
    self.runner = runner
    self.databaseId = databaseId
    self.logger = logger
  }

  /// Connects to the database at `location` and checks its schema. Without `create`, a database
  /// with no Tollgate schema is an error (`PostgresStorageError.noTollgateDatabase`); with it, the
  /// schema is created. Either way the migrations this version knows are applied (under an
  /// advisory lock, so that processes starting at once apply each once) and a schema newer than
  /// this version is refused. The caller owns the result and closes it.
  public static func connect(
    _ location: PostgresLocation, environment: [String: String], nowMs: Int64, create: Bool,
    maximumConnections: Int = 16, logger: Logger
  ) async throws -> PostgresTollgateDatabase {
    let configuration = try Self.configuration(
      location, environment: environment, maximumConnections: maximumConnections)
    var poolLogger = logger
    // The pool warns of every lease taken before its task has started running (harmless: it
    // queues), and is chatty below; its connection failures reach us as errors of our calls.
    poolLogger.logLevel = max(logger.logLevel, .error)
    let client = PostgresClient(configuration: configuration, backgroundLogger: poolLogger)
    let runner = Task { await client.run() }
    do {
      let databaseId = try await PostgresSchemaCheck.prepare(
        client: client, location: location, nowMs: nowMs, create: create, logger: logger)
      return PostgresTollgateDatabase(
        location: location, client: client, runner: runner, databaseId: databaseId, logger: logger)
    } catch {
      runner.cancel()
      await runner.value
      throw error
    }
  }

  /// Stops the pool: running statements fail, new ones are refused. `closed()` waits for it.
  public func close() { runner.cancel() }

  /// Returns once the pool has stopped after `close()`.
  public func closed() async { await runner.value }

  /// `connect`, then `body`, then close, also when `body` throws.
  public static func open<Result: Sendable>(
    _ location: PostgresLocation, environment: [String: String], nowMs: Int64, create: Bool,
    maximumConnections: Int = 16, logger: Logger,
    _ body: (PostgresTollgateDatabase) async throws -> Result
  ) async throws -> Result {
    let database = try await connect(
      location, environment: environment, nowMs: nowMs, create: create, maximumConnections: maximumConnections,
      logger: logger)
    do {
      let result = try await body(database)
      database.close()
      await database.closed()
      return result
    } catch {
      database.close()
      await database.closed()
      throw error
    }
  }

  static func configuration(
    _ location: PostgresLocation, environment: [String: String], maximumConnections: Int
  ) throws -> PostgresClient.Configuration {
    let password = try PostgresPassword.resolve(environment: environment)
    var configuration: PostgresClient.Configuration
    switch location.endpoint {
    case .tcp(let host, let port):
      configuration = .init(
        host: host, port: port, username: location.user, password: password, database: location.database,
        tls: try Self.tls(location.sslMode))
    case .unixSocket(let path):
      configuration = .init(
        unixSocketPath: path, username: location.user, password: password, database: location.database)
    }
    configuration.options.connectTimeout = .seconds(5)
    configuration.options.maximumConnections = maximumConnections
    configuration.options.additionalStartupParameters = [("application_name", "tollgate")]
    return configuration
  }

  private static func tls(_ mode: PostgresLocation.SSLMode) throws -> PostgresClient.Configuration.TLS {
    var unverified = TLSConfiguration.makeClientConfiguration()
    unverified.certificateVerification = .none
    switch mode {
    case .disable: return .disable
    case .prefer: return .prefer(unverified)
    case .require: return .require(unverified)
    case .verifyFull: return .require(.makeClientConfiguration())
    }
  }

  /// Runs `body` in one transaction on one pooled connection: committed when it returns, rolled
  /// back when it throws (its error is rethrown as it is, so callers see `StorageConflict` and the
  /// like, not a wrapper). READ COMMITTED, as PostgreSQL's default: each statement sees what was
  /// committed before it started; writers that must not interleave take row locks (`FOR UPDATE`)
  /// or the advisory locks of `PostgresLocks`. Every statement, the body's too, goes through a
  /// `PostgresSession`: one the server closed (a restart) fails at once instead of waiting forever.
  public func transaction<Result: Sendable>(
    _ body: (PostgresSession) async throws -> Result
  ) async throws -> Result {
    try await client.withConnection { connection in
      let session = PostgresSession(connection)
      try await session.query("BEGIN", logger: logger)
      let result: Result
      do {
        result = try await body(session)
      } catch {
        // A connection the server closed took its transaction with it: nothing to roll back.
        if !session.isClosed {
          do {
            try await session.query("ROLLBACK", logger: logger)
          } catch let rollbackError {
            logger.warning(
              "rollback failed", metadata: ["error": "\(PostgresStorageError.describe(rollbackError))"])
          }
        }
        throw error
      }
      try await session.query("COMMIT", logger: logger)
      return result
    }
  }

  /// Runs `body` on one pooled connection, outside any transaction (each statement commits on its
  /// own): reads that need no snapshot across statements.
  public func withConnection<Result: Sendable>(
    _ body: (PostgresSession) async throws -> Result
  ) async throws -> Result {
    try await client.withConnection { connection in try await body(PostgresSession(connection)) }
  }

  /// Runs one statement on a pooled connection and collects its rows.
  public func query(_ query: PostgresQuery) async throws -> [PostgresRow] {
    try await client.withConnection { connection in
      try await PostgresSession(connection).query(query, logger: logger).collect()
    }
  }
}
