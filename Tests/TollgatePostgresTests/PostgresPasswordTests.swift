import Foundation
import Logging
import PostgresNIO
import Testing
import TollgatePostgres
import TollgateTesting

/// The password over TCP (the test server asks for one on its loopback port): from
/// `TOLLGATE_DATABASE_PASSWORD` or the file `TOLLGATE_DATABASE_PASSWORD_FILE` names; a wrong or
/// missing one is an error that says so, without the password.
@Suite("PostgreSQL password")
struct PostgresPasswordTests {
  static let logger = Logger(label: "test")

  /// A fresh database reached over TCP, and the password the server wants.
  static func tcpDatabase(_ hint: String = #function) async throws -> (PostgresLocation, String) {
    let fresh = try await TestPostgres.freshDatabase(hint)
    let (server, password) = try TestPostgres.passwordServer()
    return (server.with(database: fresh.database), password)
  }

  static func open(_ location: PostgresLocation, _ environment: [String: String]) async throws -> String {
    try await PostgresTollgateDatabase.open(
      location, environment: environment, nowMs: 1, create: true, maximumConnections: 1, logger: logger
    ) { db in db.databaseId }
  }

  @Test("the right password from TOLLGATE_DATABASE_PASSWORD opens the database over TCP")
  func passwordFromEnvironment() async throws {
    let (location, password) = try await Self.tcpDatabase("tcp")
    guard case .tcp = location.endpoint else { throw TestPostgres.NotStarted() }
    let id = try await Self.open(location, [PostgresPassword.variable: password])
    #expect(!id.isEmpty)
  }

  @Test("the right password from the file TOLLGATE_DATABASE_PASSWORD_FILE names opens the database over TCP")
  func passwordFromFile() async throws {
    let (location, password) = try await Self.tcpDatabase("tcp")
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let file = dir.file("password")
    try Data("\(password)\n".utf8).write(to: URL(fileURLWithPath: file))
    let id = try await Self.open(location, [PostgresPassword.fileVariable: file])
    #expect(!id.isEmpty)
  }

  @Test("a wrong password, or none, is refused at once with an error that says so, without the password")
  func wrongOrNoPassword() async throws {
    let (location, password) = try await Self.tcpDatabase("tcp")
    let cases: [([String: String], String)] = [
      ([PostgresPassword.variable: "not-\(password)"], "password authentication failed"),
      ([:], PostgresPassword.variable),
    ]
    for (environment, says) in cases {
      // What a process does first (the factory's `reach`): the pool alone would retry for a minute.
      let error = await #expect(throws: PostgresUnreachable.self) {
        try await PostgresTollgateDatabase.reach(location, environment: environment, logger: Self.logger)
      }
      let text = error?.description ?? ""
      #expect(text.contains(says), "\(text)")
      #expect(text.contains(location.description))
      #expect(!text.contains(password))
      // Not worth waiting for: the server said no, or wants what was not given.
      #expect(error?.transient == false, "\(text)")
    }
    // The right one, the same way.
    try await PostgresTollgateDatabase.reach(
      location, environment: [PostgresPassword.variable: password], logger: Self.logger)
  }
}
