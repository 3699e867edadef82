import Logging
import NIOSSL
import PostgresNIO

extension PostgresTollgateDatabase {
  /// How long `reach` waits for the server, in all: the TCP (or socket) connect, TLS, the
  /// start-up and authentication.
  public static let reachTimeout: Duration = .seconds(10)

  /// Opens one connection to `location` and closes it again, within `reachTimeout`: what a
  /// process does before it starts its pool (`connect`), so that a server that is down, a wrong
  /// password or a database that does not exist is an error at once that says why. The pool
  /// alone retries a failing connect for a minute before it fails its first query, and then says
  /// only that its circuit breaker tripped. Throws `PostgresUnreachable`, naming the location
  /// without a password.
  public static func reach(_ location: PostgresLocation, environment: [String: String], logger: Logger)
    async throws
  {
    let connectionLogger = {
      var quiet = logger
      quiet.logLevel = max(logger.logLevel, .notice)
      return quiet
    }()
    let configuration: PostgresConnection.Configuration
    do {
      configuration = try Self.connectionConfiguration(location, environment: environment)
    } catch {
      throw PostgresUnreachable(database: location.description, reason: "\(error)", transient: false)
    }
    do {
      try await withThrowingTaskGroup(of: Bool.self) { group in
        group.addTask {
          let connection = try await PostgresConnection.connect(
            configuration: configuration, id: 0, logger: connectionLogger)
          try await connection.close()
          return true
        }
        group.addTask {
          try await Task.sleep(for: reachTimeout)
          return false
        }
        defer { group.cancelAll() }
        guard try await group.next() == true else {
          throw PostgresUnreachable(
            database: location.description, reason: "no answer within \(reachTimeout.components.seconds) s",
            transient: true)
        }
      }
    } catch let error as PostgresUnreachable {
      throw error
    } catch {
      throw PostgresUnreachable(
        database: location.description, reason: Self.reason(error), transient: Self.isTransient(error))
    }
  }

  private static func connectionConfiguration(
    _ location: PostgresLocation, environment: [String: String]
  ) throws -> PostgresConnection.Configuration {
    let password = try PostgresPassword.resolve(environment: environment)
    var configuration: PostgresConnection.Configuration
    switch location.endpoint {
    case .tcp(let host, let port):
      let tls: PostgresConnection.Configuration.TLS
      var unverified = TLSConfiguration.makeClientConfiguration()
      unverified.certificateVerification = .none
      switch location.sslMode {
      case .disable: tls = .disable
      case .prefer: tls = .prefer(try NIOSSLContext(configuration: unverified))
      case .require: tls = .require(try NIOSSLContext(configuration: unverified))
      case .verifyFull: tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
      }
      configuration = .init(
        host: host, port: port, username: location.user, password: password, database: location.database, tls: tls)
    case .unixSocket(let path):
      configuration = .init(
        unixSocketPath: path, username: location.user, password: password, database: location.database)
    }
    configuration.options.connectTimeout = .seconds(5)
    configuration.options.additionalStartupParameters = [("application_name", "tollgate")]
    return configuration
  }

  /// Whether the server may let this process in later without anything changed: it is down, or
  /// starting, or full (no connection, no socket, SQLSTATE 57P03, 53300); not when it answered no
  /// (a wrong password, no such database or user).
  private static func isTransient(_ error: any Error) -> Bool {
    // The server asks for a password (or a method this client lacks): no later try changes that.
    if let error = error as? PSQLError,
      [.authMechanismRequiresPassword, .unsupportedAuthMechanism].contains(error.code)
    {
      return false
    }
    guard let error = error as? PSQLError, error.serverInfo != nil else { return true }
    return ["57P03", "53300"].contains(PostgresStorageError.sqlState(error) ?? "")
  }

  /// The server's message (authentication failed, no such database), else the client's error
  /// (connection refused, no such socket): never a parameter or the password.
  private static func reason(_ error: any Error) -> String {
    if let error = error as? PSQLError {
      if error.code == .authMechanismRequiresPassword {
        return "the server asks for a password and none was given: set \(PostgresPassword.variable) "
          + "or \(PostgresPassword.fileVariable) (a file holding it)"
      }
      if error.serverInfo != nil { return PostgresStorageError.describe(error) }
      if let underlying = error.underlying { return "\(underlying)" }
      return "\(error.code)"
    }
    return "\(error)"
  }
}

/// A PostgreSQL database a process could not reach when it started: which one (its URL without a
/// password) and why.
public struct PostgresUnreachable: Error, Sendable, CustomStringConvertible {
  public var database: String
  public var reason: String
  /// The server is down, starting or full: trying again later may succeed. False when it said no
  /// (a wrong password, no such database) or the settings are wrong (the password file).
  public var transient: Bool

  public init(database: String, reason: String, transient: Bool) {
    self.database = database
    self.reason = reason
    self.transient = transient
  }

  public var description: String { "cannot connect to the PostgreSQL database \(database): \(reason)" }
}
