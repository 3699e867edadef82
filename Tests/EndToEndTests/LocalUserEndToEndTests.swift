import Foundation
import Testing
import TollgateClient
import TollgateCore
import TollgateCrypto
import TollgateDemo
import TollgateStorage
import TollgateTesting
import TollgateWorker

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 25 item 7, as a local user and a `submit` caller would try it: the database was created
/// 0644, a local user read an Amazon buyer's receipt id and Amazon user id from it, and a `submit`
/// key then moved the buyer's subscription with them. Now `serve`, the worker and the demo create
/// every file 0600 (the Unix socket 0660), warn at start about an existing database others can
/// read, and an Amazon purchase owned by someone else moves only for an `admin` caller.
@Suite("A local user and a submit caller: files and Amazon transfers", .serialized)
struct LocalUserEndToEndTests {
  static let warning = "readable or writable by other users of this host"

  /// Permission bits and whether it is a socket; nil when nothing is there.
  static func mode(_ path: String) -> (bits: mode_t, socket: Bool)? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return (info.st_mode & 0o777, info.st_mode & S_IFMT == S_IFSOCK)
  }

  static func octal(_ path: String) -> String { mode(path).map { String($0.bits, radix: 8) } ?? "missing" }

  @Test("serve creates its database, -wal and -shm 0600 and its Unix socket 0660, and warns of nothing")
  func serveCreatesPrivateFiles() async throws {
    let dir = try TemporaryDirectory(prefix: "tollgate-modes")
    defer { dir.remove() }
    let database = dir.file("tollgate.sqlite")
    let socket = dir.file("tollgate.sock")
    let served = try await ServeAccessEndToEndTests.serve(
      ["listen": "127.0.0.1:0", "database": database, "unixSocket": socket], in: dir)
    for file in [database, database + "-wal", database + "-shm"] {
      #expect(Self.mode(file)?.bits == 0o600, "\(file): \(Self.octal(file))")
    }
    let socketMode = try #require(Self.mode(socket))
    #expect(socketMode.socket)
    #expect(socketMode.bits == 0o660, "the socket is \(Self.octal(socket))")
    // The socket still answers its owner.
    let client = try ServeAccessEndToEndTests.client(socket)
    #expect(try await client.health().status == .serving)
    await client.close()
    served.process.terminate()
    #expect(!served.process.finish().stderr.contains(Self.warning))
  }

  @Test("serve and the worker warn at start, in their log, about an existing database others can read")
  func warnAboutExposedDatabase() async throws {
    let workers = try await WorkerProcesses.make(prefix: "tollgate-modes-worker")
    // The worker creates its database 0600 and says nothing.
    let first = try await workers.start(create: true)
    for file in [workers.database, workers.database + "-wal", workers.database + "-shm"] {
      #expect(Self.mode(file)?.bits == 0o600, "\(file): \(Self.octal(file))")
    }
    first.process.terminate()
    #expect(!first.process.finish().stderr.contains(Self.warning))

    // An older version (or a copy, or a restore) left it 0644.
    chmod(workers.database, 0o644)
    let again = try await workers.start(create: false)
    again.process.terminate()
    let workerLog = again.process.finish().stderr
    #expect(workerLog.contains(Self.warning), "\(workerLog)")
    #expect(workerLog.contains("file.mode=0644") && workerLog.contains("file.path=\(workers.database)"), "\(workerLog)")

    let served = try await ServeAccessEndToEndTests.serve(
      ["listen": "127.0.0.1:0", "database": workers.database], in: workers.dir)
    served.process.terminate()
    let serveLog = served.process.finish().stderr
    #expect(serveLog.contains(Self.warning), "\(serveLog)")
    #expect(serveLog.contains("file.mode=0644"), "\(serveLog)")
    await workers.remove()
  }

  @Test("the demo's stack keeps its database, certificates and the simulator's keys 0600")
  func demoFiles() async throws {
    try await withStack { stack in
      _ = try await stack.buyAndSubmit(userId: "demo")
      let root = stack.dir.path
      var files = ["tollgate.sqlite", "tollgate.sqlite-wal", "tollgate.sqlite-shm", "apple-root.cer"].map {
        "\(root)/\($0)"
      }
      let simulator = "\(root)/storesim"
      files += try FileManager.default.contentsOfDirectory(atPath: simulator).map { "\(simulator)/\($0)" }
      #expect(files.count > 6, "\(files)")
      for file in files { #expect(Self.mode(file)?.bits == 0o600, "\(file): \(Self.octal(file))") }
      #expect(Self.mode(simulator)?.bits == 0o700, "storesim/: \(Self.octal(simulator))")
    }
  }

  @Test("a submit caller with another user's Amazon receipt id and user id moves nothing; an admin caller can")
  func amazonTransferNeedsAdmin() async throws {
    try await withStack(transferPolicy: .transferToNewest) { stack in
      let appKey = "tgk_app_0123456789abcdef"
      let opsKey = "tgk_ops_fedcba9876543210"
      let dir = try TemporaryDirectory(prefix: "tollgate-amazon-callers")
      defer { dir.remove() }
      let served = try await ServeAccessEndToEndTests.serve(
        [
          "listen": "127.0.0.1:0", "database": stack.local.databasePath,
          "callers": [
            ["name": "app", "keySha256": SHA256.hash(appKey).hexString, "scopes": ["read", "submit"]],
            ["name": "ops", "keySha256": SHA256.hash(opsKey).hexString, "scopes": ["admin"]],
          ],
        ], in: dir)
      defer { served.process.terminate() }
      func submit(receiptId: String, amazonUserId: String, as caller: String, key: String, userId: String)
        async throws -> Tollgate_V1_SubmitPurchaseResponse
      {
        let client = try ServeAccessEndToEndTests.client(served.tcp, caller: caller, key: key)
        var request = Tollgate_V1_SubmitPurchaseRequest()
        request.userID = userId
        request.store = .amazon
        request.receiptID = receiptId
        request.amazonUserID = amazonUserId
        request.appID = LocalStack.amazonApp
        request.waitMs = 8_000
        do {
          let response = try await client.submitPurchase(request, timeout: .seconds(10))
          await client.close()
          return response
        } catch {
          await client.close()
          throw error
        }
      }

      // A first claim of a purchase nobody owns, by receipt id, stays open to a submit caller.
      let purchase = try await stack.local.amazonBuy()
      let claimed = try await submit(
        receiptId: purchase.receiptId, amazonUserId: purchase.userId, as: "app", key: appKey, userId: "victim")
      #expect(claimed.status == .verified, "\(claimed.rejectionReason)")
      #expect(try await stack.until("victim") { $0.active }.active)

      // The ids a local user read from a 0644 database (or a read caller from GetSubscription).
      let stolen = try await submit(
        receiptId: purchase.receiptId, amazonUserId: purchase.userId, as: "app", key: appKey, userId: "thief")
      #expect(stolen.status == .rejected)
      #expect(stolen.rejectionReason.contains("moves it only for an admin caller"), "\(stolen.rejectionReason)")
      #expect(stolen.rejectionReason.contains("Amazon signs nothing"), "\(stolen.rejectionReason)")
      try await stack.settle()
      #expect(try await stack.answer("victim").active)
      #expect(!(try await stack.answer("thief").active))
      #expect(try await stack.events("victim").contains("transfer_refused"))
      #expect(!(try await stack.events("thief").contains("transferred")))
      let owner = try await stack.worker.storage.subscription(store: .amazon, purchaseId: purchase.receiptId)
      #expect(owner?.userId == "victim")

      // The operator moves it.
      let moved = try await submit(
        receiptId: purchase.receiptId, amazonUserId: purchase.userId, as: "ops", key: opsKey, userId: "newowner")
      #expect(moved.status == .verified, "\(moved.rejectionReason)")
      #expect(try await stack.until("newowner") { $0.active }.active)
      #expect(!(try await stack.until("victim") { !$0.active }.active))
      #expect(try await stack.events("newowner").contains("transferred"))
    }
  }
}
