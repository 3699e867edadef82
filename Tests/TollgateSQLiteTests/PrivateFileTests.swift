import Foundation
import Testing
import TollgateCore
import TollgateSQLite
import TollgateStorage
import TollgateTesting

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 25 item 7: the database was created 0644, and any local user read the receipt ids and user
/// ids a claim presents. Every file Tollgate makes is 0600 whatever the umask; an existing file
/// open to others is named.
@Suite("Private files")
struct PrivateFileTests {
  /// The permission bits of the file at `path`, nil when there is none.
  static func mode(_ path: String) -> mode_t? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return info.st_mode & 0o777
  }

  @Test("a database Tollgate creates is 0600, and so are the -wal and -shm files SQLite makes beside it")
  func databaseAndSidecars() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("tollgate.sqlite")
    let storage = try SQLiteEntitlementStorage(path: path, nowMs: 1, create: true)
    try await storage.replaceEntitlements(
      userId: "alice", with: [.sample(userId: "alice", expiresAtMs: 10_000)], reason: "seed", nowMs: 1)
    for file in [path, path + "-wal", path + "-shm"] {
      #expect(Self.mode(file) == 0o600, "\(file): \(String(Self.mode(file) ?? 0, radix: 8))")
    }
    #expect(ExposedFile.ofDatabase(path).isEmpty)
  }

  @Test("a backup is created 0600; a connection opened read-only or without create creates nothing")
  func backup() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let source = try Connection(path: dir.file("a.sqlite"))
    try source.execute("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('receipt')")
    try source.backup(to: dir.file("backup.sqlite"))
    #expect(Self.mode(dir.file("backup.sqlite")) == 0o600)
    #expect(throws: DatabaseError.self) { try Connection(path: dir.file("none.sqlite"), options: .init(create: false)) }
    #expect(Self.mode(dir.file("none.sqlite")) == nil)
  }

  @Test("an existing database keeps its mode, and a file others may read or write is named with it")
  func exposedExisting() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("old.sqlite")
    #expect(FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o644]))
    // Kept open: the last connection to close removes the -wal and -shm files.
    let open = try TollgateDatabase.open(path: path, label: "t", nowMs: 1)
    defer { withExtendedLifetime(open) {} }
    #expect(Self.mode(path) == 0o644)
    let exposed = ExposedFile.ofDatabase(path)
    #expect(exposed.map(\.path).contains(path))
    #expect(exposed.first { $0.path == path }?.octalMode == "0644")
    #expect(exposed.map(\.path).contains(path + "-wal"), "SQLite gives the -wal the database's mode")
    chmod(path, 0o640)
    #expect(ExposedFile.among([path]).first?.octalMode == "0640", "a group may not read it either")
    for file in [path, path + "-wal", path + "-shm"] { chmod(file, 0o600) }
    #expect(ExposedFile.ofDatabase(path).isEmpty)
  }

  @Test("a private file is written 0600 from the start and replaces the old content atomically")
  func save() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("key.pem")
    try PrivateFile.save(Array("first".utf8), to: path)
    #expect(Self.mode(path) == 0o600)
    try PrivateFile.save(Array("second".utf8), to: path)
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "second")
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["key.pem"])
    #expect(throws: PrivateFileError.self) { try PrivateFile.save([1], to: dir.file("missing/key.pem")) }
  }
}
