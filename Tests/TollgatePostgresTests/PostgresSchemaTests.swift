import Logging
import PostgresNIO
import Testing
import TollgatePostgres
import TollgateSQLite
import TollgateTesting

/// The PostgreSQL schema against SQLite's: the same steps, and after them the same tables,
/// columns, keys, indexes, foreign keys and CHECKs, so that a migration added to one database and
/// not the other fails here.
@Suite("PostgreSQL schema")
struct PostgresSchemaTests {
  static let logger = Logger(label: "test")

  @Test("PostgreSQL has SQLite's migration steps, by the same names, in the same order")
  func sameSteps() {
    #expect(PostgresSchema.migrations.map(\.identifier) == Schema.migrator.identifiers)
  }

  @Test(
    "a fresh PostgreSQL database has the tables, columns, keys, indexes, foreign keys and CHECKs of a fresh SQLite one")
  func sameSchema() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let sqlite = try Connection(path: dir.file("db.sqlite"))
    try Schema.migrator.migrate(sqlite, nowMs: 1)
    let expected = try SchemaShape.of(sqlite: sqlite)
    // Not a vacuous comparison: the SQLite side found the schema.
    #expect(expected.tables.contains("subscriptions") && expected.tables.contains("store_health"))
    #expect(expected.indexes.contains { $0.name == "inbox_pending_by_caller" && $0.partial })
    #expect(expected.checks.contains("inbox: 2"))

    let location = try await TestPostgres.freshDatabase()
    let actual = try await PostgresTollgateDatabase.open(
      location, environment: [:], nowMs: 1, create: true, logger: Self.logger
    ) { db in try await SchemaShape.of(postgres: db) }

    #expect(actual.tables == expected.tables)
    for column in Set(expected.columns).symmetricDifference(actual.columns).sorted() {
      Issue.record("column differs: \(column) (\(expected.columns.contains(column) ? "SQLite" : "PostgreSQL") only)")
    }
    #expect(actual.primaryKeys == expected.primaryKeys)
    #expect(actual.indexes == expected.indexes)
    #expect(actual.foreignKeys == expected.foreignKeys)
    #expect(actual.checks == expected.checks)
  }

  @Test("the one-row tables, the feed's sequence and the events' UUIDs behave as on SQLite")
  func constraints() async throws {
    let location = try await TestPostgres.freshDatabase()
    try await PostgresTollgateDatabase.open(location, environment: [:], nowMs: 1_000, create: true, logger: Self.logger)
    { db in
      // database_meta: one row, a UUID written at the migrating process's clock.
      let meta = try await db.query("SELECT id, database_id, created_at_ms FROM database_meta")
      #expect(meta.count == 1)
      let (id, databaseId, createdAtMs) = try #require(meta.first).decode((Int64, String, Int64).self)
      #expect(id == 1 && createdAtMs == 1_000 && databaseId == db.databaseId)
      #expect(databaseId.count == 36 && databaseId == databaseId.lowercased())
      // CHECK (id = 1)
      await #expect(throws: (any Error).self) {
        _ = try await db.query("INSERT INTO catalog (id, catalog_json, saved_at_ms) VALUES (2, '{}', 1)")
      }
      // CHECK (kind IN …)
      await #expect(throws: (any Error).self) {
        _ = try await db.query(
          """
          INSERT INTO inbox (kind, store, payload, received_at_ms, next_attempt_at_ms)
          VALUES ('other', 'app_store', '\\x00', 1, 1)
          """)
      }
      // A sequence, not reused after a rollback or a delete (SQLite's AUTOINCREMENT).
      let first = try await db.query(
        "INSERT INTO change_feed (user_id, reason, at_ms) VALUES ('u', 'r', 1) RETURNING seq")
      _ = try await db.query("DELETE FROM change_feed")
      let second = try await db.query(
        "INSERT INTO change_feed (user_id, reason, at_ms) VALUES ('u', 'r', 2) RETURNING seq")
      #expect(try second[0].decode(Int64.self) > first[0].decode(Int64.self))
      // A foreign key: no chain for a user that does not exist.
      let error = await #expect(throws: (any Error).self) {
        _ = try await db.query(
          """
          INSERT INTO subscriptions (store, store_subscription_id, app_id, user_id, product_id, environment, state,
            verified_at_ms, updated_at_ms)
          VALUES ('app_store', 's', 'a', 'nobody', 'p', 'production', 'active', 1, 1)
          """)
      }
      #expect(error.flatMap { PostgresStorageError.sqlState($0) } == "23503")
    }
  }
}
