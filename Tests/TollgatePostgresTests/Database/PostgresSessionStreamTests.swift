import Logging
import PostgresNIO
import Synchronization
import Testing
import TollgatePostgres
import TollgateTesting

/// `PostgresSession.forEachRow`: a big read (a replica's whole entitlements table, a storage
/// copy's batch) reaches its consumer a batch at a time, never collected whole as
/// `PostgresSession.query` collects it.
@Suite("PostgreSQL: reading a big statement a batch at a time")
struct PostgresSessionStreamTests {
  static let logger = Logger(label: "test.session-stream")

  /// A fresh database with `many` holding the numbers 1…`count`.
  static func database(rows count: Int, _ hint: String = #function) async throws -> PostgresTollgateDatabase {
    let location = try await TestPostgres.freshDatabase(hint)
    try await TestPostgres.execute(
      ["CREATE TABLE many AS SELECT g::bigint AS n FROM generate_series(1, \(count)) AS g"], on: location)
    return try await PostgresTollgateDatabase.connect(
      location, environment: [:], nowMs: 0, create: true, maximumConnections: 2, logger: logger)
  }

  /// The consumer holds the first row while the rest is still on the server: when the server ends
  /// the connection then, the read fails after the first batch. Collected before the first row
  /// (`query`), every row would arrive, the connection's end unseen.
  @Test func rowsArriveBeforeTheStatementEnds() async throws {
    let total = 20_000
    let database = try await Self.database(rows: total)
    defer { database.close() }
    let location = database.location
    let delivered = Mutex(0)
    await #expect(throws: (any Error).self, "the read fails once its connection has ended") {
      try await database.transaction { connection in
        let pid = try await PostgresDroppedConnectionTests.backend(connection, Self.logger)
        try await connection.forEachRow("SELECT n FROM many ORDER BY n", batch: 500, logger: Self.logger) { row in
          let count = delivered.withLock { count in
            count += 1
            return count
          }
          #expect(try row.decode(Int64.self) == Int64(count))
          if count == 1 {
            try await TestPostgres.execute(["SELECT pg_terminate_backend(\(pid))"], on: location)
          }
        }
      }
    }
    #expect(delivered.withLock { $0 } == 500, "only the first batch had reached the consumer")
  }

  /// Every row in order, with bound parameters, whether or not the count is a multiple of the
  /// batch; a consumer that stops (throws) ends the read there; the session goes on after both.
  @Test func everyRowInOrderAndStopping() async throws {
    let database = try await Self.database(rows: 1_000)
    defer { database.close() }
    struct Stop: Error {}
    try await database.transaction { connection in
      for (after, expected) in [(750, 250), (800, 200)] {
        var seen: [Int64] = []
        try await connection.forEachRow(
          "SELECT n FROM many WHERE n > \(Int64(after)) ORDER BY n", batch: 100, logger: Self.logger
        ) { row in seen.append(try row.decode(Int64.self)) }
        #expect(seen == Array(Int64(after + 1)...1_000), "\(expected) rows after \(after)")
      }
      let taken = Mutex(0)
      await #expect(throws: Stop.self) {
        try await connection.forEachRow("SELECT n FROM many", batch: 100, logger: Self.logger) { _ in
          if taken.withLock({ count in
            count += 1
            return count
          }) == 10 {
            throw Stop()
          }
        }
      }
      #expect(taken.withLock { $0 } == 10)
    }
    let rows = try await database.query("SELECT count(*) FROM many")
    #expect(try rows.first?.decode(Int64.self) == 1_000)
  }
}
