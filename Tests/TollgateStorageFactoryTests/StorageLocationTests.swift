import Foundation
import Logging
import Testing
import TollgateCore
import TollgatePostgres
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
    "a PostgreSQL URL is a PostgreSQL location, described without a password",
    arguments: [
      (
        "postgres://tollgate@db.internal:5432/tollgate?sslmode=require",
        "postgres://tollgate@db.internal:5432/tollgate?sslmode=require"
      ),
      ("postgresql://app@db.internal/tollgate", "postgres://app@db.internal:5432/tollgate?sslmode=prefer"),
      ("POSTGRES://app@localhost:6432/db?sslmode=disable", "postgres://app@localhost:6432/db?sslmode=disable"),
    ])
  func postgres(value: String, description: String) throws {
    let location = try StorageLocation(value)
    guard case .postgres(let postgres) = location else {
      Issue.record("\(value) is not a PostgreSQL location: \(location)")
      return
    }
    #expect(postgres == (try PostgresLocation(url: value)))
    #expect(location.description == description)
    #expect(location.isServer)
    #expect(location.exposedFiles.isEmpty, "no file of ours to check")
    // What a process prints (and a test passes on) is read back as the same location.
    #expect(try StorageLocation(location.description) == location)
  }

  @Test(
    "a PostgreSQL URL Tollgate cannot use is refused saying why, never repeating it",
    arguments: [
      ("postgres://tollgate:s3cret@db.internal:5432/tollgate", PostgresLocationError.passwordInURL),
      ("postgresql://tollgate@db.internal/tollgate?password=s3cret", .passwordInURL),
      ("postgres://db.internal/tollgate", .noUser),
      ("postgres://tollgate@db.internal", .noDatabase),
      ("postgres://tollgate@db.internal:99999/tollgate", .badPort),
      ("postgres://tollgate@db.internal/tollgate?sslmode=s3cret", .badSSLMode),
      ("postgresql:s3cret", .notPostgres),
    ])
  func postgresRefused(value: String, reason: PostgresLocationError) {
    #expect(throws: StorageLocationError.postgres(reason)) { try StorageLocation(value) }
    let message = StorageLocationError.postgres(reason).description
    #expect(message.contains("PostgreSQL"), "\(message)")
    #expect(message.contains(reason.description))
    #expect(!message.contains("s3cret"))
    #expect(!message.contains("db.internal"), "the URL is never repeated")
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
      #expect(error.description.contains("postgres://USER@HOST:PORT/DATABASE"), "\(error)")
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
    #expect(!missing.isServer)
    await #expect(throws: (any Error).self) {
      try await missing.entitlementStorage(nowMs: 1, create: false, environment: [:], logger: logger)
    }
    do {
      _ = try await missing.workerStorage(
        nowMs: 1, create: false, hint: "pass --create", environment: [:], logger: logger)
      Issue.record("a missing database was opened")
    } catch {
      #expect("\(error)".contains(dir.file("missing.sqlite")) && "\(error)".contains("pass --create"), "\(error)")
    }
    #expect(!FileManager.default.fileExists(atPath: dir.file("missing.sqlite")))

    let location = try StorageLocation(dir.file("db.sqlite"))
    let service = try await location.entitlementStorage(nowMs: 1, create: true, environment: [:], logger: logger)
    let record = EntitlementRecord.sample(userId: "alice", expiresAtMs: 5_000)
    try await service.replaceEntitlements(batch: [("alice", [record]), ("bob", [])], reason: "seed", nowMs: 2)
    let worker = try await location.workerStorage(
      nowMs: 3, create: false, durability: .normal, environment: [:], logger: logger)
    #expect(try await worker.entitlements(userId: "alice") == [record])
    #expect(try await service.changes(after: 0, limit: 10).map(\.userId) == ["alice", "bob"])
  }

  @Test("exposed files: none for a database made 0600, the file and its mode once others may read it")
  func exposedFiles() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let location = StorageLocation.sqlite(path: dir.file("db.sqlite"))
    _ = try await location.entitlementStorage(nowMs: 1, create: true, environment: [:], logger: Logger(label: "test"))
    #expect(location.exposedFiles.isEmpty)
    #expect(chmod(dir.file("db.sqlite"), 0o644) == 0)
    #expect(location.exposedFiles == [ExposedStorageFile(path: dir.file("db.sqlite"), octalMode: "0644")])
  }
}
