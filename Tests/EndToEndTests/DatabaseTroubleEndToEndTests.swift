import Foundation
import Testing
import TollgateClient
import TollgateCore
import TollgateSQLite
import TollgateStorage
import TollgateTesting

/// Database trouble made visible: a mistyped path, a deleted or replaced file, an older backup
/// restored under a running service. Real SQLite files, a real service, real processes.
@Suite("Database trouble", .serialized)
struct DatabaseTroubleEndToEndTests {
  @Test("serve refuses a missing database, naming the path, and creates none; --create makes one")
  func serveMistypedPath() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let missing = dir.file("tollgate.sqlte")
    let refused = try await ChildProcess.runDetached(["serve", "--listen", "127.0.0.1:0", "--database", missing])
    #expect(refused.status != 0)
    #expect(refused.stderr.contains("no database at \(missing)"), "\(refused.stderr)")
    #expect(refused.stderr.contains("--create"))
    #expect(!FileManager.default.fileExists(atPath: missing))

    let created = try ChildProcess(["serve", "--listen", "127.0.0.1:0", "--database", missing, "--create"])
    defer { created.terminate() }
    let listening = await created.waitForLine(containing: "listening on")
    #expect(listening != nil)
    #expect(FileManager.default.fileExists(atPath: missing))
  }

  @Test("the worker started first on a mistyped path creates no database and names the path; --create makes one")
  func workerMistypedPath() async throws {
    let workers = try await WorkerProcesses.make(prefix: "tollgate-mistyped")
    let missing = workers.dir.file("tollgate.sqlte")
    let refused = try await ChildProcess.runDetached(
      ["worker", "--config", workers.config, "--database", missing], environment: workers.environment)
    #expect(refused.status != 0)
    #expect(refused.stderr.contains("no database at \(missing)"), "\(refused.stderr)")
    #expect(refused.stderr.contains("--create"), "\(refused.stderr)")
    #expect(!FileManager.default.fileExists(atPath: missing), "the worker created a database at a mistyped path")
    // So serve, started next as documented, refuses it too instead of answering "not entitled".
    let serve = try await ChildProcess.runDetached(["serve", "--listen", "127.0.0.1:0", "--database", missing])
    #expect(serve.status != 0)

    let created = try workers.launch(create: true, arguments: ["--database", missing])
    let listening = await created.waitForLine(containing: "notifications on")
    #expect(listening != nil)
    #expect(FileManager.default.fileExists(atPath: missing))
    created.terminate()
    _ = created.finish()
    await workers.remove()
  }

  @Test("grant, revoke, reverify and explain never create a database: a mistyped path is an error naming it")
  func adminMistypedPath() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let missing = dir.file("tollgate.sqlte")
    for command in [
      ["grant", "u", "premium", "--until", "30d"], ["revoke", "u", "premium"], ["reverify", "u"],
      ["explain", "u", "premium"],
    ] {
      let result = try await ChildProcess.runDetached(command + ["--database", missing])
      #expect(result.status != 0, "\(command[0])")
      #expect(result.stderr.contains("no database at \(missing)"), "\(command[0]): \(result.stderr)")
      #expect(!FileManager.default.fileExists(atPath: missing), "\(command[0]) created a database")
    }
  }

  @Test("the service's database file deleted: Health says NOT_SERVING with the reason; a submission is UNAVAILABLE")
  func serviceFileDeleted() async throws {
    let expires = SystemClock.nowMs() + 3_600_000
    try await withService(seed: [.sample(userId: "alice", expiresAtMs: expires)]) { service in
      #expect(try await service.client.health().status == .serving)
      try FileManager.default.removeItem(atPath: service.databasePath)
      let health = try await waitForHealth(service.client) { $0.status == .notServing }
      #expect(health.reason.contains("was deleted"))
      #expect(health.reason.contains(service.databasePath))
      try await expectSubmissionUnavailable(service.client)
      // What it knew is still answered (never a lockout), while Health tells operators to act.
      #expect(try await service.client.isSubscriber(userId: "alice", entitlement: "premium").active)
    }
  }

  @Test("the service's -wal and -shm files deleted under it: Health says NOT_SERVING; a submission is UNAVAILABLE")
  func serviceWALDeleted() async throws {
    let expires = SystemClock.nowMs() + 3_600_000
    try await withService(seed: [.sample(userId: "alice", expiresAtMs: expires)]) { service in
      #expect(try await service.client.health().status == .serving)
      for suffix in ["-wal", "-shm"] { try FileManager.default.removeItem(atPath: service.databasePath + suffix) }
      let health = try await waitForHealth(service.client) { $0.status == .notServing }
      #expect(health.reason.contains("write-ahead log"), "\(health.reason)")
      #expect(health.reason.contains(service.databasePath + "-wal"))
      // A submission would be stored in a log nobody reads after a restart: refused, not acknowledged.
      try await expectSubmissionUnavailable(service.client)
      #expect(try await service.client.isSubscriber(userId: "alice", entitlement: "premium").active)
    }
  }

  @Test("another file renamed over the service's database: Health says NOT_SERVING and why")
  func serviceFileReplaced() async throws {
    try await withService { service in
      let other = service.dir.file("restored.sqlite")
      _ = try SQLiteEntitlementStorage(path: other, nowMs: 1)
      #expect(rename(other, service.databasePath) == 0)
      let health = try await waitForHealth(service.client) { $0.status == .notServing }
      #expect(health.reason.contains("was replaced"))
      try await expectSubmissionUnavailable(service.client)
    }
  }

  @Test("an older backup restored online: the service reloads, stops entitling removed users, and follows again")
  func olderBackupRestored() async throws {
    let expires = SystemClock.nowMs() + 3_600_000
    try await withService(seed: [.sample(userId: "alice", expiresAtMs: expires)]) { service in
      try Connection(path: service.databasePath).backup(to: service.dir.file("backup.sqlite"))
      try await service.storage.replaceEntitlements(
        userId: "bob", with: [.sample(userId: "bob", expiresAtMs: expires)], reason: "purchase", nowMs: 2)
      try await service.storage.replaceEntitlements(
        userId: "carol", with: [.sample(userId: "carol", expiresAtMs: expires)], reason: "purchase", nowMs: 2)
      _ = try await eventually { try await service.client.isSubscriber(userId: "carol", entitlement: "premium").active }

      try Connection(path: service.databasePath).restore(from: service.dir.file("backup.sqlite"))
      let reloaded = try await eventually {
        try await !service.client.isSubscriber(userId: "bob", entitlement: "premium").active
      }
      #expect(reloaded != nil, "bob is not in the restored database, yet the service still entitles him")
      #expect(!(try await service.client.isSubscriber(userId: "carol", entitlement: "premium").active))
      #expect(try await service.client.isSubscriber(userId: "alice", entitlement: "premium").active)
      // Writes after the restore reuse feed numbers the service had applied: it sees them.
      try await service.storage.replaceEntitlements(
        userId: "dave", with: [.sample(userId: "dave", expiresAtMs: expires)], reason: "purchase", nowMs: 3)
      let seen = try await eventually {
        try await service.client.isSubscriber(userId: "dave", entitlement: "premium").active
      }
      #expect(seen != nil)
      let health = try await waitForHealth(service.client) { $0.status == .serving }
      #expect(health.changeFeedAppliedSeq == health.changeFeedHeadSeq)
    }
  }

  @Test("the worker's database file deleted, then replaced: notifications get 503 and /health says why")
  func workerFileDeletedThenReplaced() async throws {
    let workers = try await WorkerProcesses.make()
    let (worker, port, adminPort) = try await workers.start()
    defer { worker.terminate() }
    let body = Data(#"{"signedPayload":"x.y.z"}"#.utf8)
    #expect(try await httpRequest("GET", port: adminPort, path: "/health").status == 200)

    try FileManager.default.removeItem(atPath: workers.database)
    let refused = try await httpRequest("POST", port: port, path: "/notifications/apple/v2", body: body)
    #expect(refused.status == 503)
    let health = try await httpRequest("GET", port: adminPort, path: "/health")
    #expect(health.status == 503)
    #expect(health.body.contains("not_serving"))
    #expect(health.body.contains("was deleted"))

    _ = try SQLiteEntitlementStorage(path: workers.dir.file("other.sqlite"), nowMs: 1)
    #expect(rename(workers.dir.file("other.sqlite"), workers.database) == 0)
    #expect(try await httpRequest("POST", port: port, path: "/notifications/apple/v2", body: body).status == 503)
    #expect(try await httpRequest("GET", port: adminPort, path: "/health").body.contains("was replaced"))
    worker.terminate()
    _ = worker.finish()
    await workers.remove()
  }

  @Test("the worker's -wal and -shm files deleted under it: notifications get 503 and /health says why")
  func workerWALDeleted() async throws {
    let workers = try await WorkerProcesses.make()
    let (worker, port, adminPort) = try await workers.start()
    defer { worker.terminate() }
    // The service has the database open too, as in production.
    let service = try SQLiteEntitlementStorage(path: workers.database, nowMs: 1, create: false)
    let body = Data(#"{"signedPayload":"x.y.z"}"#.utf8)
    #expect(try await httpRequest("GET", port: adminPort, path: "/health").status == 200)

    for suffix in ["-wal", "-shm"] { try FileManager.default.removeItem(atPath: workers.database + suffix) }
    #expect(try await httpRequest("POST", port: port, path: "/notifications/apple/v2", body: body).status == 503)
    let health = try await httpRequest("GET", port: adminPort, path: "/health")
    #expect(health.status == 503)
    #expect(health.body.contains("not_serving"))
    #expect(health.body.contains("write-ahead log"), "\(health.body)")
    #expect(service.fileProblem()?.message.contains("write-ahead log") == true)
    worker.terminate()
    _ = worker.finish()
    await workers.remove()
  }

  private func waitForHealth(
    _ client: TollgateClient, _ condition: @escaping (Tollgate_V1_HealthResponse) -> Bool
  ) async throws -> Tollgate_V1_HealthResponse {
    var last = Tollgate_V1_HealthResponse()
    _ = try await eventually {
      last = try await client.health()
      return condition(last)
    }
    #expect(condition(last), "health stayed \(last.status): \(last.reason)")
    return last
  }

  private func expectSubmissionUnavailable(_ client: TollgateClient) async throws {
    var submit = Tollgate_V1_SubmitPurchaseRequest()
    submit.userID = "alice"
    submit.store = .appStore
    submit.receipt = "2000000123"
    await #expect {
      try await client.submitPurchase(submit)
    } throws: { error in
      (error as? TollgateClientError)?.code == .unavailable
    }
  }
}
