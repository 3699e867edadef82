import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing
import TollgatePostgres
import TollgateTesting

/// A connection the server ends (a restart, a failover, `pg_terminate_backend`) while a storage
/// holds it: the storage call fails at once and the pool goes on with a new connection. Before
/// `PostgresSession`, a statement written to such a connection was never answered (postgres-nio
/// 1.33 drops it) and its caller waited forever: after PostgreSQL restarted, a worker's inbox loop
/// stopped claiming for good (`BeyondOneMachineEndToEndTests`).
@Suite("PostgreSQL: a connection the server ended")
struct PostgresDroppedConnectionTests {
  enum Moment: String, CaseIterable, CustomTestStringConvertible {
    /// Ended between two statements of a transaction (idle in transaction).
    case betweenStatements
    /// Ended while a statement of a transaction ran (then its ROLLBACK must not wait either).
    case duringStatement
    /// Ended between two statements outside a transaction (`withConnection`).
    case outsideTransaction
    var testDescription: String { rawValue }
  }

  @Test("the storage call fails at once, and the next one works", arguments: Moment.allCases)
  func failsAtOnce(_ moment: Moment) async throws {
    let location = try await TestPostgres.freshDatabase()
    let database = try await PostgresTollgateDatabase.connect(
      location, environment: [:], nowMs: 0, create: true, maximumConnections: 2,
      logger: Logger(label: "test.dropped-connection"))
    defer { database.close() }
    let outcome = Mutex<Result<Void, any Error>?>(nil)
    // Not awaited when it hangs (what this test catches): a hung statement ignores cancellation,
    // so a task group would hang the test with it. Awaited below whenever it ends.
    let call = Task {
      do {
        try await Self.call(database, on: location, endingAt: moment)
        outcome.withLock { $0 = .success(()) }
      } catch {
        outcome.withLock { $0 = .failure(error) }
      }
    }
    let deadline = ContinuousClock.now + .seconds(15)
    while outcome.withLock({ $0 }) == nil && ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(20))
    }
    let ended = try #require(outcome.withLock { $0 }, "the storage call still waits 15 s after its connection ended")
    await call.value
    #expect(throws: (any Error).self, "a statement on the ended connection fails") { try ended.get() }
    // The pool replaces the connection: the next call works. The pool learns of the close on the
    // connection's event loop, a moment after the call above failed; until then it may lend the
    // ended connection once more, which fails at once too (never waits).
    var rows: [PostgresRow]?
    for _ in 0..<20 where rows == nil {
      do {
        rows = try await database.query("SELECT 1")
      } catch is PostgresConnectionClosed {
        try await Task.sleep(for: .milliseconds(50))
      }
    }
    #expect(try rows?.first?.decode(Int64.self) == 1)
  }

  /// A storage call whose connection the server ends at `moment` (from another connection, as a
  /// restart does: `FATAL: terminating connection due to administrator command`).
  static func call(_ database: PostgresTollgateDatabase, on location: PostgresLocation, endingAt moment: Moment)
    async throws
  {
    switch moment {
    case .betweenStatements:
      try await database.transaction { connection in
        try await end(connection, on: location)
        try await connection.query("SELECT 1", logger: database.logger)
      }
    case .duringStatement:
      try await database.transaction { connection in
        let pid = try await backend(connection, database.logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
          group.addTask {
            try await Task.sleep(for: .milliseconds(300))
            try await TestPostgres.execute(["SELECT pg_terminate_backend(\(pid))"], on: location)
          }
          try await connection.query("SELECT pg_sleep(30)", logger: database.logger)
          try await group.waitForAll()
        }
      }
    case .outsideTransaction:
      try await database.withConnection { connection in
        try await end(connection, on: location)
        try await connection.query("SELECT 1", logger: database.logger)
      }
    }
  }

  /// Ends `connection` from the server's side and waits until the client has seen it close.
  static func end(_ connection: PostgresSession, on location: PostgresLocation) async throws {
    let pid = try await backend(connection, Logger(label: "test.dropped-connection"))
    try await TestPostgres.execute(["SELECT pg_terminate_backend(\(pid))"], on: location)
    let deadline = ContinuousClock.now + .seconds(10)
    while !connection.isClosed && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
    try #require(connection.isClosed, "the client saw its connection close")
  }

  static func backend(_ connection: PostgresSession, _ logger: Logger) async throws -> Int32 {
    try await connection.query("SELECT pg_backend_pid()", logger: logger).collect().first?.decode(Int32.self) ?? 0
  }
}
