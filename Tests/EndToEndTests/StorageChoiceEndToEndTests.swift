import Foundation
import Testing
import TollgateClient
import TollgateTesting

/// The `--database` / `database` value picks the storage (`StorageLocation`): an SQLite path, or a
/// PostgreSQL URL. A URL Tollgate cannot use is refused by every command with one clear message,
/// before anything is opened; a PostgreSQL server that is down is an error naming it (without a
/// password) within the reach timeout, except for `serve`, which waits for it.
@Suite("tollgate commands and the storage they are given, as processes")
struct StorageChoiceEndToEndTests {
  static let withPassword = "postgres://tollgate:s3cret@localhost:5432/tollgate"

  @Test(
    "serve, worker (from its config file) and the admin commands refuse a PostgreSQL URL they cannot use, naming why")
  func postgresURLRefused() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let config = dir.file("config.json")
    let json: [String: Any] = [
      "worker": ["database": Self.withPassword], "service": ["database": Self.withPassword],
    ]
    try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: config))
    let runs: [(arguments: [String], message: String)] = [
      (["serve", "--listen", "127.0.0.1:0", "--database", Self.withPassword], "carries a password"),
      (
        ["serve", "--listen", "127.0.0.1:0", "--database", "postgresql://localhost/tollgate", "--create"],
        "names no user"
      ),
      (["serve", "--listen", "127.0.0.1:0", "--config", config], "carries a password"),
      (["worker", "--config", config, "--create"], "carries a password"),
      (["explain", "alice", "premium", "--database", Self.withPassword], "carries a password"),
      (["webhooks", "list-parked", "--config", config], "carries a password"),
      (["seed", "--database", "postgres://tollgate@db/tollgate?sslmode=maybe", "--users", "1"], "sslmode"),
    ]
    for (arguments, message) in runs {
      let result = try await ChildProcess.runDetached(arguments)
      #expect(result.status != 0, "\(arguments)")
      #expect(
        result.stderr.contains("the database is a PostgreSQL URL Tollgate cannot use"), "\(arguments): \(result.stderr)"
      )
      #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
      #expect(!result.stderr.contains("s3cret"), "\(arguments) printed the URL's password")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["config.json"], "nothing was created")
  }

  @Test("a PostgreSQL server that is down: worker, the admin commands and seed exit at once naming it; serve waits")
  func postgresServerDown() async throws {
    // A port nothing listens on.
    let port = try await Stack.freePort()
    let url = "postgres://tollgate@127.0.0.1:\(port)/tollgate?sslmode=disable"
    let processes = try await PostgresProcesses.make(database: url)
    defer { processes.dir.remove() }
    do {
      try await Self.serverDown(url: url, processes: processes)
    } catch {
      await processes.sim.stop()
      throw error
    }
    await processes.sim.stop()
  }

  private static func serverDown(url: String, processes: PostgresProcesses) async throws {
    var environment = processes.environment
    environment["TOLLGATE_DATABASE_PASSWORD"] = "s3cret"
    for arguments in [
      ["worker", "--config", processes.config, "--create"],
      ["explain", "alice", "premium", "--database", url],
      ["webhooks", "list-parked", "--config", processes.config],
      ["seed", "--database", url, "--users", "1"],
    ] {
      let started = ContinuousClock.now
      let result = try await ChildProcess.runDetached(arguments, environment: environment)
      #expect(result.status != 0, "\(arguments)")
      #expect(
        result.stderr.contains("cannot connect to the PostgreSQL database \(url)"), "\(arguments): \(result.stderr)")
      #expect(!result.stderr.contains("s3cret"))
      #expect(ContinuousClock.now - started < .seconds(10), "\(arguments) gave up within the reach timeout")
    }

    // serve listens at once and answers NOT_SERVING, saying why, until the server can be reached.
    let serve = try ChildProcess(["serve", "--listen", "127.0.0.1:0", "--database", url, "--log-level", "warning"])
    defer { serve.terminate() }
    let line = try #require(await serve.waitForLine(containing: "listening on"), "serve did not start")
    #expect(line.contains("database \(url)"), "\(line)")
    let address = try #require(line.split(separator: " ").first { $0.hasPrefix("127.0.0.1:") })
    let servePort = try #require(Int(address.split(separator: ":")[1].trimmingCharacters(in: [","])))
    let client = TollgateClient(host: "127.0.0.1", port: servePort)
    let health = try await client.health()
    #expect(health.status == .notServing, "\(health)")
    #expect(health.reason.contains("cannot connect to the PostgreSQL database"), "\(health.reason)")
    await #expect(throws: (any Error).self) { try await client.isSubscriber(userId: "alice", entitlement: "premium") }
    await client.close()
  }

  @Test("an unknown scheme is refused; sqlite:PATH serves the file at PATH")
  func schemes() async throws {
    let unknown = try await ChildProcess.runDetached([
      "serve", "--listen", "127.0.0.1:0", "--database", "mysql://root@localhost/tollgate",
    ])
    #expect(unknown.status != 0)
    #expect(unknown.stderr.contains("mysql://… is not a storage Tollgate knows"), "\(unknown.stderr)")

    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("tollgate.sqlite")
    let serve = try ChildProcess([
      "serve", "--listen", "127.0.0.1:0", "--database", "sqlite:" + path, "--create", "--log-level", "warning",
    ])
    defer { serve.terminate() }
    let line = await serve.waitForLine(containing: "listening on")
    #expect(line?.contains("database \(path)") == true, "\(line ?? "serve did not start")")
    #expect(FileManager.default.fileExists(atPath: path))
  }
}
