import Foundation
import Testing
import TollgateTesting

/// The `--database` / `database` value picks the storage (`StorageLocation`): PostgreSQL is
/// reserved and refused by every command with one clear message, before anything is opened.
@Suite("tollgate commands and the storage they are given, as processes")
struct StorageChoiceEndToEndTests {
  static let postgres = "postgres://tollgate:s3cret@localhost:5432/tollgate"
  static let refusal = "PostgreSQL storage is not in this version"

  @Test("serve, worker (from its config file) and an admin command refuse a PostgreSQL URL, naming why")
  func postgresRefused() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let runs: [[String]]
    let config = dir.file("config.json")
    let json: [String: Any] = ["worker": ["database": Self.postgres], "service": ["database": Self.postgres]]
    try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: config))
    runs = [
      ["serve", "--listen", "127.0.0.1:0", "--database", Self.postgres],
      ["serve", "--listen", "127.0.0.1:0", "--database", "postgresql://localhost/tollgate", "--create"],
      ["serve", "--listen", "127.0.0.1:0", "--config", config],
      ["worker", "--config", config, "--create"],
      ["explain", "alice", "premium", "--database", Self.postgres],
      ["webhooks", "list-parked", "--config", config],
    ]
    for arguments in runs {
      let result = try await ChildProcess.runDetached(arguments)
      #expect(result.status != 0, "\(arguments)")
      #expect(result.stderr.contains(Self.refusal), "\(arguments): \(result.stderr)")
      #expect(result.stderr.contains("sqlite:PATH"), "\(arguments): \(result.stderr)")
      #expect(!result.stderr.contains("s3cret"), "\(arguments) printed the URL's password")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["config.json"], "nothing was created")
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
