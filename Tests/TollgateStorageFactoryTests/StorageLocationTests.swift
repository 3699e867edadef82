import Foundation
import Logging
import Testing
import TollgateCore
import TollgateStorage
import TollgateStorageFactory
import TollgateTesting

@Suite("Storage location (--database)")
struct StorageLocationTests {
  @Test(
    "a bare path or sqlite:PATH is an SQLite file",
    arguments: [
      ("/var/lib/tollgate/tollgate.sqlite", "/var/lib/tollgate/tollgate.sqlite"),
      ("tollgate.sqlite", "tollgate.sqlite"),
      ("data:1.sqlite", "data:1.sqlite"),
      ("./a://b", "./a://b"),
      ("sqlite:/var/lib/t.sqlite", "/var/lib/t.sqlite"),
      ("sqlite:t.sqlite", "t.sqlite"),
      ("SQLite:t.sqlite", "t.sqlite"),
      ("sqlite:///var/lib/t.sqlite", "/var/lib/t.sqlite"),
      ("sqlite://t.sqlite", "t.sqlite"),
    ])
  func sqlite(value: String, path: String) throws {
    #expect(try StorageLocation(value) == .sqlite(path: path))
    #expect(try StorageLocation(value).description == path)
  }

  @Test(
    "a PostgreSQL URL is refused with a clear message that never repeats it",
    arguments: [
      "postgres://tollgate:s3cret@db.internal:5432/tollgate", "postgresql://tollgate:s3cret@db.internal/tollgate",
      "POSTGRES://tollgate:s3cret@localhost/db", "postgresql:s3cret",
    ])
  func postgres(value: String) {
    #expect(throws: StorageLocationError.postgresNotYet) { try StorageLocation(value) }
    let message = StorageLocationError.postgresNotYet.description
    #expect(message.contains("PostgreSQL storage is not in this version"))
    #expect(message.contains("sqlite:PATH"))
    #expect(!message.contains("s3cret"))
  }

  @Test("an empty value, sqlite: without a path and an unknown scheme are refused, saying what is accepted")
  func refused() {
    #expect(throws: StorageLocationError.empty) { try StorageLocation("") }
    #expect(throws: StorageLocationError.noPath) { try StorageLocation("sqlite:") }
    #expect(throws: StorageLocationError.noPath) { try StorageLocation("sqlite://") }
    #expect(throws: StorageLocationError.unknownScheme("mysql")) { try StorageLocation("mysql://root@localhost/t") }
    #expect(throws: StorageLocationError.unknownScheme("file")) { try StorageLocation("file:///tmp/t.sqlite") }
    for error in [StorageLocationError.empty, .noPath, .unknownScheme("mysql")] {
      #expect(error.description.contains("a file path, or sqlite:PATH"), "\(error)")
    }
    #expect(StorageLocationError.unknownScheme("mysql").description.contains("mysql://"))
    let long = String(repeating: "x", count: 200)
    #expect(StorageLocationError.unknownScheme(long).description.count < 200, "a long scheme is shortened")
  }

  @Test("the service's and the worker's storage open on one SQLite file; without create a missing one names its path")
  func opens() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let logger = Logger(label: "test")
    let missing = try StorageLocation("sqlite:" + dir.file("missing.sqlite"))
    #expect(throws: (any Error).self) { try missing.entitlementStorage(nowMs: 1, create: false, logger: logger) }
    do {
      _ = try missing.workerStorage(nowMs: 1, create: false, hint: "pass --create", logger: logger)
      Issue.record("a missing database was opened")
    } catch {
      #expect("\(error)".contains(dir.file("missing.sqlite")) && "\(error)".contains("pass --create"), "\(error)")
    }
    #expect(!FileManager.default.fileExists(atPath: dir.file("missing.sqlite")))

    let location = try StorageLocation(dir.file("db.sqlite"))
    let service = try location.entitlementStorage(nowMs: 1, create: true, logger: logger)
    let record = EntitlementRecord.sample(userId: "alice", expiresAtMs: 5_000)
    try await service.replaceEntitlements(batch: [("alice", [record]), ("bob", [])], reason: "seed", nowMs: 2)
    let worker = try location.workerStorage(nowMs: 3, create: false, durability: .normal, logger: logger)
    #expect(try await worker.entitlements(userId: "alice") == [record])
    #expect(try await service.changes(after: 0, limit: 10).map(\.userId) == ["alice", "bob"])
  }

  @Test("exposed files: none for a database made 0600, the file and its mode once others may read it")
  func exposedFiles() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let location = StorageLocation.sqlite(path: dir.file("db.sqlite"))
    _ = try location.entitlementStorage(nowMs: 1, create: true, logger: Logger(label: "test"))
    #expect(location.exposedFiles.isEmpty)
    #expect(chmod(dir.file("db.sqlite"), 0o644) == 0)
    #expect(location.exposedFiles == [ExposedStorageFile(path: dir.file("db.sqlite"), octalMode: "0644")])
  }
}
