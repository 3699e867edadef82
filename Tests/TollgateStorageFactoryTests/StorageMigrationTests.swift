import Foundation
import Testing
import TollgatePostgres
import TollgateSQLite
import TollgateStorageFactory
import TollgateTesting
import TollgateWorker

/// `tollgate migrate-storage` (`StorageMigration`) on real SQLite files and the PostgreSQL test
/// server: what goes in comes out, table by table, and what must be refused is refused.
@Suite("migrate-storage between SQLite and PostgreSQL")
struct StorageMigrationTests {
  typealias Fixtures = StorageMigrationFixtures

  static func migrate(
    _ source: StorageLocation, _ target: StorageLocation, batchSize: Int = 3
  ) async throws -> StorageMigrationReport {
    try await StorageMigration.run(
      from: source, to: target, environment: Fixtures.environment, nowMs: Fixtures.nowMs, batchSize: batchSize,
      logger: Fixtures.logger, progress: { _ in })
  }

  /// The error `body` throws, as a `StorageMigrationError` (nil: it threw none, or another).
  static func migrationError(_ body: () async throws -> Void) async -> StorageMigrationError? {
    do {
      try await body()
      return nil
    } catch let error as StorageMigrationError {
      return error
    } catch {
      Issue.record("unexpected error \(error)")
      return nil
    }
  }

  @Test("SQLite → PostgreSQL → a new SQLite file: every table's rows equal the original's, the database id too")
  func roundTrip() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let original = dir.file("original.sqlite")
    try await Fixtures.populate(.sqlite(path: original))
    let before = try Fixtures.dumpSQLite(original)
    // The fixture reaches every table: an empty one would prove nothing about its copy.
    for (table, rows) in before where table != "sqlite_sequence" {
      #expect(!rows.isEmpty, "the fixture wrote no row in \(table)")
    }

    let postgres = try await TestPostgres.freshDatabase()
    let there = try await Self.migrate(.sqlite(path: original), .postgres(postgres))
    let onPostgres = try await Fixtures.dumpPostgres(postgres)
    #expect(Set(onPostgres.keys) == Set(before.keys).subtracting(["sqlite_sequence"]))
    for (table, rows) in before where table != "sqlite_sequence" {
      #expect(Fixtures.rows(onPostgres, table) == rows, "\(table) differs on PostgreSQL")
    }
    #expect(there.databaseId != nil)
    #expect(there.tables.count == before.count - 1)

    let back = dir.file("back.sqlite")
    let returned = try await Self.migrate(.postgres(postgres), .sqlite(path: back), batchSize: 2)
    let after = try Fixtures.dumpSQLite(back)
    #expect(Set(after.keys) == Set(before.keys))
    for (table, rows) in before {
      #expect(Fixtures.rows(after, table) == rows, "\(table) differs after the round trip")
    }
    #expect(returned.tables == there.tables)
    #expect(try Fixtures.dumpSQLite(original) == before, "the source was changed")
  }

  @Test("after a copy, new rows on the target get ids above every copied one (and the source's pruned feed ids)")
  func newRowsGetNewIds() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let original = dir.file("original.sqlite")
    try await Fixtures.populate(.sqlite(path: original))
    // The newest feed entry pruned: SQLite's AUTOINCREMENT still never hands its number out again,
    // and neither may the copy.
    let feedHead = Fixtures.highest(try Fixtures.dumpSQLite(original), "change_feed", "seq")
    try Connection(path: original).execute("DELETE FROM change_feed WHERE seq = \(feedHead)")
    let source = try Fixtures.dumpSQLite(original)

    let postgres = try await TestPostgres.freshDatabase()
    _ = try await Self.migrate(.sqlite(path: original), .postgres(postgres))
    try await Self.writeMore(.postgres(postgres))
    let onPostgres = try await Fixtures.dumpPostgres(postgres)
    try Self.expectNewIds(onPostgres, above: source, feedHead: feedHead)

    let back = dir.file("back.sqlite")
    _ = try await Self.migrate(.postgres(postgres), .sqlite(path: back))
    try await Self.writeMore(.sqlite(path: back), base: 200)
    try Self.expectNewIds(try Fixtures.dumpSQLite(back), above: onPostgres, feedHead: feedHead)
  }

  /// New rows in the id tables, through the real storage: a subscription and its transaction, an
  /// inbox item, a grant with its event and feed entry.
  static func writeMore(_ location: StorageLocation, base: Int = 100) async throws {
    let worker = try await location.workerStorage(
      nowMs: Fixtures.nowMs, create: false, environment: Fixtures.environment, logger: Fixtures.logger)
    do {
      let subscription = WorkerStorageConformance.subscription("chain-new-\(base)", user: "user-new-\(base)")
      _ = try await worker.apply(
        WorkerStorageConformance.change(
          subscription, events: [WorkerStorageConformance.event("subscribed", of: subscription, atMs: 1)]),
        recompute: WorkerStorageConformance.recompute)
      _ = try await worker.storeNotification(
        route: "google", dedupeKey: "new-\(base)", payload: [1, 2, 3], nowMs: Fixtures.nowMs)
      _ = try await worker.addGrant(
        userId: "user-new-\(base)", entitlement: "premium", expiresAtMs: Fixtures.nowMs + 1, note: nil, actor: nil,
        nowMs: Fixtures.nowMs, recompute: WorkerStorageConformance.recompute)
    } catch {
      await worker.close()
      throw error
    }
    await worker.close()
  }

  static func expectNewIds(
    _ dump: StorageMigrationFixtures.Dump, above copied: StorageMigrationFixtures.Dump, feedHead: Int64
  ) throws {
    for (table, column) in [
      ("subscriptions", "id"), ("transactions", "id"), ("inbox", "id"), ("grants", "id"), ("events", "id"),
      ("change_feed", "seq"),
    ] {
      let old = Fixtures.rows(copied, table)
      let new = Fixtures.rows(dump, table).subtracting(old)
      #expect(!new.isEmpty, "no new row in \(table)")
      let highestCopied = max(Fixtures.highest(copied, table, column), table == "change_feed" ? feedHead : 0)
      for row in new {
        guard case .integer(let id)? = row[column] else {
          Issue.record("\(table).\(column) is no integer")
          continue
        }
        #expect(id > highestCopied, "a new row of \(table) got \(column) \(id), not above \(highestCopied)")
      }
    }
  }

  @Test("a target that holds Tollgate data is refused and left as it was (PostgreSQL and SQLite)")
  func nonEmptyTargetRefused() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let source = dir.file("source.sqlite")
    try await Fixtures.populate(.sqlite(path: source))

    let postgres = try await TestPostgres.freshDatabase()
    try await Fixtures.populate(.postgres(postgres), users: 1, base: 50)
    let postgresBefore = try await Fixtures.dumpPostgres(postgres)
    let refused = await Self.migrationError { _ = try await Self.migrate(.sqlite(path: source), .postgres(postgres)) }
    guard case .targetNotEmpty(_, let tables)? = refused else {
      Issue.record("not refused as non-empty: \(String(describing: refused))")
      return
    }
    #expect(tables.contains { $0.table == "subscriptions" && $0.rows == 1 })
    #expect(try await Fixtures.dumpPostgres(postgres) == postgresBefore, "the refused target was changed")

    // Only a catalog row: data too.
    let target = dir.file("target.sqlite")
    let worker = try await StorageLocation.sqlite(path: target).workerStorage(
      nowMs: Fixtures.nowMs, create: true, environment: [:], logger: Fixtures.logger)
    try await worker.saveCatalog(.defaults, nowMs: Fixtures.nowMs)
    await worker.close()
    let sqliteBefore = try Fixtures.dumpSQLite(target)
    let alsoRefused = await Self.migrationError {
      _ = try await Self.migrate(.sqlite(path: source), .sqlite(path: target))
    }
    #expect(
      alsoRefused == .targetNotEmpty(target, [.init(table: "catalog", rows: 1)]), "\(String(describing: alsoRefused))")
    #expect(try Fixtures.dumpSQLite(target) == sqliteBefore)

    // An empty schema is no data: accepted.
    let empty = dir.file("empty.sqlite")
    let storage = try await StorageLocation.sqlite(path: empty).workerStorage(
      nowMs: Fixtures.nowMs, create: true, environment: [:], logger: Fixtures.logger)
    await storage.close()
    let report = try await Self.migrate(.sqlite(path: source), .sqlite(path: empty))
    #expect(report.tables.first { $0.table == "subscriptions" }?.rows == 6)
  }

  @Test("a count that does not match after the copy is an error, and the target keeps none of the copy")
  func countMismatch() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let source = dir.file("source.sqlite")
    try await Fixtures.populate(.sqlite(path: source))
    let sourceEvents = Int64(Fixtures.rows(try Fixtures.dumpSQLite(source), "events").count)

    // PostgreSQL: a trigger on the target drops every other event row as it is inserted.
    let postgres = try await TestPostgres.freshDatabase()
    try await PostgresTollgateDatabase.open(
      postgres, environment: [:], nowMs: Fixtures.nowMs, create: true, logger: Fixtures.logger
    ) { _ in }
    try await TestPostgres.execute(
      [
        """
        CREATE FUNCTION drop_even_events() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.id % 2 = 0 THEN RETURN NULL; END IF; RETURN NEW; END $$
        """,
        "CREATE TRIGGER drop_even_events BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION drop_even_events()",
      ], on: postgres)
    let mismatch = await Self.migrationError { _ = try await Self.migrate(.sqlite(path: source), .postgres(postgres)) }
    guard case .countMismatch("events", let expected, let found)? = mismatch else {
      Issue.record("no count mismatch on events: \(String(describing: mismatch))")
      return
    }
    #expect(expected == sourceEvents)
    #expect(found < expected)
    let left = try await Fixtures.dumpPostgres(postgres)
    for (table, rows) in left where table != "database_meta" { #expect(rows.isEmpty, "\(table) kept rows") }

    // SQLite: the same with RAISE(IGNORE).
    let target = dir.file("target.sqlite")
    let database = try TollgateDatabase.open(
      path: target, options: Connection.Options(create: true), label: "test", nowMs: Fixtures.nowMs)
    try database.readSync { db in
      try db.execute(
        "CREATE TRIGGER drop_even_events BEFORE INSERT ON events WHEN NEW.id % 2 = 0 BEGIN SELECT RAISE(IGNORE); END")
    }
    let alsoMismatch = await Self.migrationError {
      _ = try await Self.migrate(.sqlite(path: source), .sqlite(path: target))
    }
    guard case .countMismatch("events", sourceEvents, _)? = alsoMismatch else {
      Issue.record("no count mismatch on SQLite's events: \(String(describing: alsoMismatch))")
      return
    }
    for (table, rows) in try Fixtures.dumpSQLite(target) where !["database_meta", "sqlite_sequence"].contains(table) {
      #expect(rows.isEmpty, "\(table) kept rows")
    }
  }

  @Test("a source at an older schema is refused and not upgraded; a missing source is named")
  func olderSourceRefused() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let source = dir.file("source.sqlite")
    try await Fixtures.populate(.sqlite(path: source), users: 1)
    let newest = Schema.migrator.identifiers.last ?? ""
    try Connection(path: source).execute("DELETE FROM tollgate_migrations WHERE identifier = '\(newest)'")

    let target = dir.file("target.sqlite")
    let refused = await Self.migrationError { _ = try await Self.migrate(.sqlite(path: source), .sqlite(path: target)) }
    #expect(refused == .sourceOlder(source, missing: [newest]), "\(String(describing: refused))")
    #expect(refused?.description.contains("tollgate worker") == true)
    let applied = try Migrator.appliedIdentifiers(try Connection(path: source))
    #expect(!applied.contains(newest), "the source was upgraded in place")
    #expect(!FileManager.default.fileExists(atPath: target), "a target was created for a refused copy")

    do {
      _ = try await Self.migrate(.sqlite(path: dir.file("nothing.sqlite")), .sqlite(path: target))
      Issue.record("a missing source was copied")
    } catch {
      #expect("\(error)".contains("no database at \(dir.file("nothing.sqlite"))"), "\(error)")
    }
    let same = await Self.migrationError { _ = try await Self.migrate(.sqlite(path: source), .sqlite(path: source)) }
    #expect(same == .sameDatabase(source))
  }
}
