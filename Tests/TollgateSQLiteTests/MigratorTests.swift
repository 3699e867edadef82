import Testing
import TollgateSQLite
import TollgateStorage
import TollgateTesting

@Suite("Migrations")
struct MigratorTests {
  @Test("a new database gets every migration once; opening it again applies nothing")
  func appliesOnce() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("db.sqlite")
    let first = try Connection(path: path)
    #expect(try Schema.migrator.migrate(first, nowMs: 1) == Schema.migrator.identifiers)
    #expect(try Schema.migrator.migrate(first, nowMs: 2) == [])
    let second = try Connection(path: path)
    #expect(try Schema.migrator.migrate(second, nowMs: 3) == [])
    #expect(try Migrator.appliedIdentifiers(second) == Schema.migrator.identifiers)
  }

  @Test("a database a newer Tollgate upgraded (a migration this version does not know) is refused, naming it")
  func newerSchemaRefused() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("db.sqlite")
    do {
      let db = try Connection(path: path)
      try Schema.migrator.migrate(db, nowMs: 1)
      try db.execute("INSERT INTO tollgate_migrations (identifier, applied_at_ms) VALUES ('v99-from-the-future', 2)")
    }
    let db = try Connection(path: path)
    do {
      try Schema.migrator.migrate(db, nowMs: 3)
      Issue.record("expected the newer schema to be refused")
    } catch let error as DatabaseFileError {
      #expect(error.code == .schemaNewer)
      #expect(error.path == path)
      #expect(
        error.message
          == "the database \(path) was upgraded by a newer Tollgate (migrations v99-from-the-future unknown to this version): run the newer version"
      )
    }
    // The way every process opens it, too.
    let error = #expect(throws: DatabaseFileError.self) {
      _ = try TollgateDatabase.open(path: path, label: "test", nowMs: 4)
    }
    #expect(error?.code == .schemaNewer)
  }

  @Test("a failing migration rolls back and is not recorded")
  func failingMigrationRollsBack() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let db = try Connection(path: dir.file("db.sqlite"))
    var migrator = Migrator()
    migrator.register("good") { try $0.execute("CREATE TABLE a (x INTEGER)") }
    migrator.register("bad") { db in
      try db.execute("CREATE TABLE b (x INTEGER)")
      try db.execute("THIS IS NOT SQL")
    }
    #expect(throws: DatabaseError.self) { try migrator.migrate(db, nowMs: 1) }
    #expect(try Migrator.appliedIdentifiers(db) == ["good"])
    // Table b was rolled back with its migration.
    #expect(throws: DatabaseError.self) { try db.execute("SELECT * FROM b") }
  }

  @Test("the database is in WAL mode")
  func walMode() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let db = try Connection(path: dir.file("db.sqlite"))
    let statement = try db.prepare("PRAGMA journal_mode")
    #expect(try statement.step())
    #expect(statement.string(at: 0) == "wal")
  }

  @Test("constraint violations carry SQLite's code")
  func constraintCode() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let db = try Connection(path: dir.file("db.sqlite"))
    try Schema.migrator.migrate(db, nowMs: 1)
    try db.execute("INSERT INTO users (user_id, created_at_ms) VALUES ('a', 1)")
    do {
      try db.execute("INSERT INTO users (user_id, created_at_ms) VALUES ('a', 2)")
      Issue.record("expected a constraint error")
    } catch {
      #expect(error.code == .constraint)
    }
  }
}
