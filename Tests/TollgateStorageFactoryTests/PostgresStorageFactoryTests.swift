import Foundation
import Logging
import Testing
import TollgateCore
import TollgatePostgres
import TollgateStorage
import TollgateStorageFactory
import TollgateTesting

/// The factory on the PostgreSQL server `scripts/test` starts (`TestPostgres`): each test on a
/// database of its own.
@Suite("Storage factory on PostgreSQL")
struct PostgresStorageFactoryTests {
  let logger = Logger(label: "test")

  @Test(
    "the service's and the worker's storage open on one PostgreSQL database; without create an empty one is refused")
  func opens() async throws {
    let location = StorageLocation.postgres(try await TestPostgres.freshDatabase())
    do {
      _ = try await location.entitlementStorage(nowMs: 1, create: false, environment: [:], logger: logger)
      Issue.record("a database without Tollgate's schema was opened")
    } catch {
      #expect("\(error)".contains("no Tollgate database at \(location)"), "\(error)")
    }
    let worker = try await location.workerStorage(
      nowMs: 1, create: true, connections: StorageConnections.tool, environment: [:], logger: logger)
    let service = try await location.entitlementStorage(nowMs: 2, create: false, environment: [:], logger: logger)
    let record = EntitlementRecord.sample(userId: "alice", expiresAtMs: 5_000)
    try await service.replaceEntitlements(batch: [("alice", [record]), ("bob", [])], reason: "seed", nowMs: 3)
    #expect(try await worker.entitlements(userId: "alice") == [record])
    #expect(try await service.changes(after: 0, limit: 10).map(\.userId) == ["alice", "bob"])
    await service.close()
    await worker.close()
    // Closed: the pool is gone.
    await #expect(throws: (any Error).self) { try await service.headSeq() }
  }

  @Test("a server that is down is an error within the reach timeout, naming the database without a password")
  func unreachable() async throws {
    let port = try await Self.closedPort()
    let location = try StorageLocation("postgres://tollgate@127.0.0.1:\(port)/tollgate?sslmode=disable")
    let started = ContinuousClock.now
    do {
      _ = try await location.workerStorage(nowMs: 1, create: true, environment: [:], logger: logger)
      Issue.record("a storage opened on a closed port")
    } catch let error as PostgresUnreachable {
      #expect(error.transient)
      #expect(
        error.description.hasPrefix("cannot connect to the PostgreSQL database \(location):"), "\(error.description)")
    }
    #expect(ContinuousClock.now - started < PostgresTollgateDatabase.reachTimeout)
  }

  @Test("a wrong password is refused at once, even by a storage that waits for its server")
  func wrongPassword() async throws {
    let (server, _) = try TestPostgres.passwordServer()
    let location = StorageLocation.postgres(server)
    do {
      _ = try await location.entitlementStorage(
        nowMs: 1, create: true, waitForServer: true, environment: ["TOLLGATE_DATABASE_PASSWORD": "not-it"],
        logger: logger)
      Issue.record("a wrong password opened a storage")
    } catch let error as PostgresUnreachable {
      #expect(!error.transient)
      #expect(error.reason.contains("28P01"), "\(error.reason)")
      #expect(!error.description.contains("not-it"))
    }
  }

  @Test("waiting for the server: calls fail saying why until its socket is there, then the storage opens")
  func waitsForServer() async throws {
    let database = try await TestPostgres.freshDatabase()
    guard case .unixSocket(let socket) = database.endpoint else {
      Issue.record("the test server's URL is not a Unix socket")
      return
    }
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let waiting = dir.file((socket as NSString).lastPathComponent)
    var absent = database
    absent.endpoint = .unixSocket(path: waiting)
    let storage = try await StorageLocation.postgres(absent).entitlementStorage(
      nowMs: 1, create: true, waitForServer: true, environment: [:], logger: logger)
    await #expect(throws: PostgresUnreachable.self) { try await storage.headSeq() }
    #expect(
      storage.problem()?.contains("cannot connect to the PostgreSQL database") == true, "\(storage.problem() ?? "")")
    // The server's socket appears where the location names it.
    try FileManager.default.createSymbolicLink(atPath: waiting, withDestinationPath: socket)
    #expect(try await storage.headSeq() == 0)
    #expect(storage.problem() == nil)
    try await storage.replaceEntitlements(
      userId: "alice", with: [.sample(userId: "alice", expiresAtMs: 5_000)], reason: "test", nowMs: 2)
    #expect(try await storage.changes(after: 0, limit: 10).map(\.userId) == ["alice"])
    await storage.close()
  }

  /// A loopback port nothing listens on (bound, then closed).
  static func closedPort() async throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
        bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
      }
    }
    guard bound else { throw POSIXError(.EADDRNOTAVAIL) }
    return Int(UInt16(bigEndian: address.sin_port))
  }
}
