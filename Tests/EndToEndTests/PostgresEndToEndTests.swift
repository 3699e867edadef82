import Foundation
import Logging
import StoreSimulator
import Testing
import TollgateClient
import TollgateCrypto
import TollgateTesting

/// Issue 27: `tollgate worker` and `tollgate serve` as processes on one PostgreSQL database (a
/// fresh one on the server `scripts/test` starts, reached over its Unix socket without a
/// password), the App Store simulated over HTTP. Nothing but the `--database` value (and the
/// config's `database`) says PostgreSQL.
@Suite("PostgreSQL: serve and worker as processes")
struct PostgresEndToEndTests {
  @Test("a purchase submitted through serve is verified by the worker on PostgreSQL; the store's refund ends it")
  func purchaseAndRefund() async throws {
    let database = try await TestPostgres.freshDatabase()
    let processes = try await PostgresProcesses.make(database: database.description)
    defer { processes.dir.remove() }
    do {
      // The worker creates the schema (`--create`), as on SQLite it creates the file.
      let worker = try await processes.startWorker(create: true)
      defer { worker.terminate() }
      let (serve, port) = try await processes.startServe()
      defer { serve.terminate() }
      let client = TollgateClient(host: "127.0.0.1", port: port)

      let purchase = try await processes.sim.purchase(
        .init(productId: Stack.premium, bundleId: Stack.bundleId, environment: "Sandbox"))
      var request = Tollgate_V1_SubmitPurchaseRequest()
      request.userID = "alice"
      request.store = .appStore
      request.receipt = purchase.signedTransaction
      request.waitMs = 8_000
      let response = try await client.submitPurchase(request, timeout: .seconds(10))
      #expect(response.status == .verified, "\(response)")
      let bought = try await Self.until(client, "alice") { $0.active }
      #expect(bought.active, "IsSubscriber on serve after the worker verified the purchase: \(bought)")
      #expect(try await client.isSubscriber(userId: "bob", entitlement: "premium").active == false)

      // The refund reaches the worker as the store's signed notification; the service follows
      // the change feed on PostgreSQL.
      try await processes.sim.refund(purchase.originalTransactionId)
      let refunded = try await Self.until(client, "alice") { !$0.active }
      #expect(!refunded.active, "IsSubscriber after the refund notification: \(refunded)")

      // The admin, webhook and seed commands on the same URL, each with a pool of its own.
      let clock = ["--follow-clock", processes.sim.baseURL]
      let explain = try await ChildProcess.runDetached(
        ["explain", "alice", "premium", "--database", processes.database, "--json"] + clock)
      #expect(explain.status == 0 && explain.stdout.contains("refunded"), "\(explain.stderr)\(explain.stdout)")
      let grant = try await ChildProcess.runDetached(
        ["grant", "bob", "premium", "--until", "30d", "--database", processes.database] + clock)
      #expect(grant.status == 0, "\(grant.stderr)")
      #expect(try await Self.until(client, "bob") { $0.active }.active, "a grant made on PostgreSQL reaches serve")
      let parked = try await ChildProcess.runDetached(["webhooks", "list-parked", "--database", processes.database])
      #expect(parked.status == 0 && parked.stdout.contains("no parked webhook events"), "\(parked.stderr)")
      let seed = try await ChildProcess.runDetached(["seed", "--database", processes.database, "--users", "3"])
      #expect(seed.status == 0 && seed.stdout.contains("into \(processes.database)"), "\(seed.stderr)")
      #expect(try await Self.until(client, "user-2") { $0.active }.active, "seeded users reach serve")
      let visibility = try await ChildProcess.runDetached([
        "bench", "visibility", "--server", "127.0.0.1:\(port)", "--database", processes.database, "--samples", "3",
        "--interval-ms", "0",
      ])
      #expect(visibility.status == 0, "bench visibility on PostgreSQL: \(visibility.stderr)\(visibility.stdout)")
      let scratch = try await TestPostgres.freshDatabase().description
      let inbox = try await ChildProcess.runDetached([
        "bench", "inbox", "--database", scratch, "--count", "40", "--concurrency", "4",
      ])
      #expect(inbox.status == 0 && inbox.stdout.contains("notifications/s"), "\(inbox.stderr)")
      await client.close()

      serve.terminate()
      worker.terminate()
      #expect(serve.finish().status == 0, "serve stops cleanly on SIGTERM, its pool closed")
      #expect(worker.finish().status == 0, "the worker stops cleanly on SIGTERM, its pool closed")
    } catch {
      await processes.sim.stop()
      throw error
    }
    await processes.sim.stop()
  }

  @Test("serve started before its PostgreSQL server can be reached answers NOT_SERVING, then loads once it can")
  func serveWaitsForTheServer() async throws {
    let database = try await TestPostgres.freshDatabase().description
    // The server's socket, named by ?host=DIRECTORY&port=PORT: serve is given another directory,
    // where the socket appears (a link to the server's) only later.
    let query = try #require(database.split(separator: "?").last).split(separator: "&")
    let host = try #require(query.first { $0.hasPrefix("host=") }?.dropFirst("host=".count))
    let port = try #require(query.first { $0.hasPrefix("port=") }?.dropFirst("port=".count))
    let dir = try TemporaryDirectory(prefix: "tollgate-postgres-later")
    defer { dir.remove() }
    let later = database.replacingOccurrences(of: "host=\(host)&", with: "host=\(dir.path)&")
    let serve = try ChildProcess([
      "serve", "--listen", "127.0.0.1:0", "--database", later, "--create", "--log-level", "warning",
    ])
    defer { serve.terminate() }
    let line = try #require(await serve.waitForLine(containing: "listening on"), "serve did not start")
    let address = try #require(line.split(separator: " ").first { $0.hasPrefix("127.0.0.1:") })
    let client = TollgateClient(
      host: "127.0.0.1", port: try #require(Int(address.split(separator: ":")[1].trimmingCharacters(in: [","]))))
    let waiting = try await client.health()
    #expect(waiting.status == .notServing, "\(waiting)")
    #expect(waiting.reason.contains("cannot connect to the PostgreSQL database"), "\(waiting.reason)")

    try FileManager.default.createSymbolicLink(
      atPath: dir.file(".s.PGSQL.\(port)"), withDestinationPath: "\(host)/.s.PGSQL.\(port)")
    let deadline = ContinuousClock.now + .seconds(15)
    var health = try await client.health()
    while health.status != .serving, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(50))
      health = try await client.health()
    }
    #expect(health.status == .serving, "\(health)")
    #expect(try await client.isSubscriber(userId: "alice", entitlement: "premium").active == false)
    await client.close()
  }

  /// Asks serve until `condition` holds (the worker and the feed are asynchronous), or 15 s.
  static func until(
    _ client: TollgateClient, _ userId: String, _ condition: (Tollgate_V1_IsSubscriberResponse) -> Bool
  ) async throws -> Tollgate_V1_IsSubscriberResponse {
    let deadline = ContinuousClock.now + .seconds(15)
    var last = try await client.isSubscriber(userId: userId, entitlement: "premium")
    while !condition(last), ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(20))
      last = try await client.isSubscriber(userId: userId, entitlement: "premium")
    }
    return last
  }
}

/// A worker's config file on a PostgreSQL database and an in-process App Store simulator that
/// posts its notifications to the worker's fixed port; `serve` and the worker as processes.
struct PostgresProcesses {
  let dir: TemporaryDirectory
  let sim: StoreSimulator
  let database: String
  let notificationPort: Int
  let environment: [String: String?]
  var config: String { dir.file("config.json") }

  static func make(database: String) async throws -> PostgresProcesses {
    let dir = try TemporaryDirectory(prefix: "tollgate-postgres-e2e")
    let key = try P256PrivateKey.generate()
    let port = try await Stack.freePort()
    var simConfig = StoreSimulator.Config.defaults
    simConfig.notificationRetryDelaysMs = [200, 500]
    simConfig.apple.apps[0].apiKey = .init(keyId: "KEY1", issuerId: "ISSUER", publicKeyPEM: try Stack.publicPEM(key))
    simConfig.apple.apps[0].notificationURL = "http://127.0.0.1:\(port)/notifications/apple/v2"
    let sim = try await StoreSimulator.start(config: simConfig, logger: Logger(label: "postgres-e2e.sim"))
    do {
      try Data(sim.rootCertificate.der).write(to: URL(fileURLWithPath: dir.file("root.cer")))
      let config: [String: Any] = [
        "apps": [["id": "ios", "store": "app_store", "bundleId": Stack.bundleId]],
        "entitlements": [["id": "premium"]],
        "products": [["productId": Stack.premium, "store": "app_store", "entitlements": ["premium"]]],
        "worker": [
          "listen": "127.0.0.1:\(port)", "adminListen": "127.0.0.1:0", "database": database, "pollMs": 5,
          "backoffBaseMs": 50, "backoffMaxMs": 200, "followClockURL": sim.baseURL,
        ],
        "appStore": [
          [
            "bundleId": Stack.bundleId, "appAppleId": simConfig.apple.apps[0].appAppleId, "environment": "sandbox",
            "apiKeyId": "KEY1", "apiIssuerId": "ISSUER", "apiPrivateKeyEnv": "POSTGRES_E2E_APPLE_KEY",
            "apiBaseURL": sim.baseURL + "/sandbox", "rootCertificates": [dir.file("root.cer")],
          ]
        ],
      ]
      try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: dir.file("config.json")))
      return PostgresProcesses(
        dir: dir, sim: sim, database: database, notificationPort: port,
        environment: ["POSTGRES_E2E_APPLE_KEY": try key.pkcs8PEM()])
    } catch {
      await sim.stop()
      dir.remove()
      throw error
    }
  }

  /// Starts `tollgate worker` on the config (its `database` the PostgreSQL URL) and waits until it
  /// listens; its start-up line names the database without a password.
  func startWorker(create: Bool) async throws -> ChildProcess {
    let worker = try ChildProcess(
      ["worker", "--config", config, "--log-level", "warning"] + (create ? ["--create"] : []), environment: environment)
    guard let line = await worker.waitForLine(containing: "notifications on") else {
      worker.terminate()
      throw WorkerDidNotStart(stderr: worker.finish().stderr)
    }
    #expect(line.contains("database \(database)"), "\(line)")
    return worker
  }

  /// Starts `tollgate serve --database URL` following the simulator's clock; returns it and its port.
  func startServe() async throws -> (ChildProcess, Int) {
    let serve = try ChildProcess([
      "serve", "--listen", "127.0.0.1:0", "--database", database, "--follow-clock", sim.baseURL, "--log-level",
      "warning",
    ])
    guard let line = await serve.waitForLine(containing: "listening on"),
      let address = line.split(separator: " ").first(where: { $0.hasPrefix("127.0.0.1:") }),
      let port = Int(address.split(separator: ":")[1].trimmingCharacters(in: [","]))
    else {
      serve.terminate()
      throw ServeDidNotStart(stderr: serve.finish().stderr)
    }
    #expect(line.contains("database \(database)"), "\(line)")
    return (serve, port)
  }
}

struct ServeDidNotStart: Error, CustomStringConvertible {
  var stderr: String
  var description: String { "tollgate serve did not start: \(stderr)" }
}
