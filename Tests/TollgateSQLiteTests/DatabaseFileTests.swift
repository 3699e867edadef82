import Foundation
import Testing
import TollgateCore
import TollgateSQLite
import TollgateStorage
import TollgateTesting

/// Durability and the database file's identity: writes are fsynced; a missing path is not
/// created unless asked; a deleted or replaced file stops writes instead of losing them.
@Suite("Database file")
struct DatabaseFileTests {
  let submission = PurchaseSubmission(userId: "alice", store: .appStore, receipt: "2000000123", productId: "monthly")

  @Test("writers fsync every commit (synchronous = FULL); NORMAL only when asked")
  func synchronousFull() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    func synchronous(_ options: Connection.Options) throws -> Int64 {
      let db = try TollgateDatabase.open(path: dir.file("db.sqlite"), options: options, label: "t", nowMs: 1)
      return try db.readSync { try $0.prepare("PRAGMA synchronous").rows { $0.int64(at: 0) }.first ?? -1 }
    }
    #expect(try synchronous(Connection.Options()) == 2)  // FULL
    #expect(try synchronous(Connection.Options(synchronous: .normal)) == 1)
  }

  @Test("a connection's page cache is SQLite's default unless asked")
  func cacheSize() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    func cacheSize(_ connection: Connection) throws -> Int64 {
      try connection.prepare("PRAGMA cache_size").rows { $0.int64(at: 0) }.first ?? 0
    }
    #expect(try cacheSize(Connection(path: dir.file("a.sqlite"))) == -2_000)
    #expect(try cacheSize(Connection(path: dir.file("a.sqlite"), options: .init(cacheKiB: 32 << 10))) == -32_768)
  }

  @Test("without create, a missing path is an error naming it, and no file appears; a foreign file is refused")
  func openExistingOnly() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let missing = dir.file("mistyped.sqlite")
    let error = try #require(throws: DatabaseFileError.self) {
      try SQLiteEntitlementStorage(path: missing, nowMs: 1, create: false)
    }
    #expect(error.code == .missing)
    #expect(error.message.contains(missing))
    #expect(!FileManager.default.fileExists(atPath: missing))

    let foreign = dir.file("other.sqlite")
    try Connection(path: foreign).execute("CREATE TABLE notes (text TEXT)")
    let notOurs = try #require(throws: DatabaseFileError.self) {
      try SQLiteEntitlementStorage(path: foreign, nowMs: 1, create: false)
    }
    #expect(notOurs.code == .notTollgate)

    _ = try SQLiteEntitlementStorage(path: missing, nowMs: 1, create: true)
    _ = try SQLiteEntitlementStorage(path: missing, nowMs: 1, create: false)
  }

  @Test("a database gets an id at creation; a backup carries it, another database has its own")
  func databaseId() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let storage = try SQLiteEntitlementStorage(path: dir.file("a.sqlite"), nowMs: 1)
    let id = try await storage.feedMark(at: 0).databaseId
    #expect(id.count == 32)
    try Connection(path: dir.file("a.sqlite")).backup(to: dir.file("copy.sqlite"))
    #expect(
      try await SQLiteEntitlementStorage(path: dir.file("copy.sqlite"), nowMs: 1).feedMark(at: 0).databaseId == id)
    #expect(try await SQLiteEntitlementStorage(path: dir.file("b.sqlite"), nowMs: 1).feedMark(at: 0).databaseId != id)
  }

  @Test("after the file is deleted, a submission is refused (not acknowledged into the unlinked file)")
  func deleted() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("db.sqlite")
    let storage = try SQLiteEntitlementStorage(path: path, nowMs: 1)
    _ = try await storage.submitPurchase(submission, nowMs: 1)
    #expect(storage.fileProblem() == nil)
    try FileManager.default.removeItem(atPath: path)
    let error = try #require(storage.fileProblem())
    #expect(error.code == .deleted)
    #expect(error.message.contains(path))
    await #expect(throws: DatabaseFileError.self) { try await storage.submitPurchase(submission, nowMs: 2) }
  }

  @Test("after the -wal and -shm files are deleted under a running process, writes are refused (issue 24)")
  func walDeleted() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("db.sqlite")
    let storage = try SQLiteEntitlementStorage(path: path, nowMs: 1)
    _ = try await storage.submitPurchase(submission, nowMs: 1)
    #expect(storage.fileProblem() == nil)
    for suffix in ["-wal", "-shm"] { try FileManager.default.removeItem(atPath: path + suffix) }
    let error = try #require(storage.fileProblem())
    #expect(error.code == .deleted)
    #expect(error.message.contains(path + "-wal"))
    #expect(error.message.contains("write-ahead log"))
    await #expect(throws: DatabaseFileError.self) { try await storage.submitPurchase(submission, nowMs: 2) }
  }

  @Test("a -wal deleted while a write is in its transaction: the commit is not acknowledged")
  func walDeletedDuringWrite() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("db.sqlite")
    let writer = try TollgateDatabase.open(path: path, label: "t", nowMs: 1)
    try await writer.write { db in try db.execute("CREATE TABLE notes (text TEXT)") }
    let error = await #expect(throws: DatabaseFileError.self) {
      try await writer.write { db in
        // After the look before the transaction, before the commit.
        try FileManager.default.removeItem(atPath: path + "-wal")
        try db.execute("INSERT INTO notes VALUES ('lost')")
      }
    }
    #expect(error?.message.contains("write-ahead log") == true)
  }

  @Test("after another file is renamed over the path, writes are refused and the problem names it")
  func replaced() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("db.sqlite")
    let storage = try SQLiteEntitlementStorage(path: path, nowMs: 1)
    _ = try SQLiteEntitlementStorage(path: dir.file("restored.sqlite"), nowMs: 1)
    #expect(rename(dir.file("restored.sqlite"), path) == 0)  // as `mv restored.sqlite db.sqlite` does
    #expect(storage.fileProblem()?.code == .replaced)
    await #expect(throws: DatabaseFileError.self) { try await storage.submitPurchase(submission, nowMs: 2) }
    // A process that opens the path now gets the new file, and may write.
    _ = try await SQLiteEntitlementStorage(path: path, nowMs: 2).submitPurchase(submission, nowMs: 2)
  }
}
