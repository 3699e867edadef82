import Foundation
import Logging
import PostgresNIO
import Synchronization
import TollgatePostgres

/// The PostgreSQL server `scripts/test` starts for the tests (`scripts/postgres-test-server`), and a
/// fresh database on it for each test that asks. Nothing here mocks PostgreSQL: with no server
/// started, a test that needs one fails and says how to start it.
public enum TestPostgres {
  /// Set by `scripts/test`: a URL reaching the server without a password (its Unix socket).
  public static let urlVariable = "TOLLGATE_TEST_POSTGRES_URL"
  /// Set by `scripts/test`: the server over loopback TCP, which asks for a password…
  public static let tcpURLVariable = "TOLLGATE_TEST_POSTGRES_TCP_URL"
  /// …this one.
  public static let passwordVariable = "TOLLGATE_TEST_POSTGRES_PASSWORD"

  public struct NotStarted: Error, CustomStringConvertible {
    public init() {}
    public var description: String {
      """
      no PostgreSQL server for the tests: \(TestPostgres.urlVariable) is not set. scripts/test starts one; \
      by hand: eval "$(scripts/postgres-test-server start /tmp/tollgate-pg)" before swift test
      """
    }
  }

  /// The test server's location (its `postgres` database).
  public static func server() throws -> PostgresLocation {
    guard let url = ProcessInfo.processInfo.environment[urlVariable], !url.isEmpty else { throw NotStarted() }
    return try PostgresLocation(url: url)
  }

  /// The test server over TCP, with the password a process must be given (`TOLLGATE_DATABASE_PASSWORD`).
  public static func passwordServer() throws -> (location: PostgresLocation, password: String) {
    let environment = ProcessInfo.processInfo.environment
    guard let url = environment[tcpURLVariable], let password = environment[passwordVariable] else {
      throw NotStarted()
    }
    return (try PostgresLocation(url: url), password)
  }

  private static let counter = Atomic<Int>(0)

  /// A new, empty database on the test server, named after the test and unique in this run.
  public static func freshDatabase(_ hint: String = #function) async throws -> PostgresLocation {
    let server = try server()
    let stem = hint.lowercased().filter { ("a"..."z").contains($0) || ("0"..."9").contains($0) }.prefix(30)
    let number = counter.add(1, ordering: .relaxed).newValue
    let name = "t_\(stem)_\(ProcessInfo.processInfo.processIdentifier)_\(number)"
    try await execute(["CREATE DATABASE \(name)"], on: server)
    return server.with(database: name)
  }

  /// Runs statements (not parameterised: tests' own SQL) on `location` through a pool of one.
  public static func execute(_ statements: [String], on location: PostgresLocation) async throws {
    var configuration: PostgresClient.Configuration
    switch location.endpoint {
    case .tcp(let host, let port):
      configuration = .init(
        host: host, port: port, username: location.user, password: nil, database: location.database, tls: .disable)
    case .unixSocket(let path):
      configuration = .init(unixSocketPath: path, username: location.user, password: nil, database: location.database)
    }
    configuration.options.maximumConnections = 1
    let client = PostgresClient(configuration: configuration, backgroundLogger: Logger(label: "test-postgres"))
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { await client.run() }
      defer { group.cancelAll() }
      for statement in statements {
        try await client.query(PostgresQuery(unsafeSQL: statement))
      }
    }
  }
}
