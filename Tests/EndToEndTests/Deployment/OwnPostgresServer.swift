import Foundation
import TollgatePostgres
import TollgateTesting

/// A PostgreSQL server of one test's own (`scripts/postgres-test-server`, as `scripts/test`
/// starts the shared one), which the test may stop and start again without disturbing any other
/// test: what "restart PostgreSQL mid-run" needs.
struct OwnPostgresServer {
  let directory: String
  /// Its `postgres` database over the Unix socket (no password).
  let location: PostgresLocation

  static let script = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("scripts/postgres-test-server").path

  static func start(prefix: String) async throws -> OwnPostgresServer {
    let directory = NSTemporaryDirectory() + "\(prefix)-\(UUID().uuidString.prefix(8))"
    let output = try await run(["start", directory])
    guard
      let line = output.split(separator: "\n").first(where: { $0.hasPrefix("export \(TestPostgres.urlVariable)=") }),
      let url = line.split(separator: "=", maxSplits: 1).last?.trimmingCharacters(in: ["'"])
    else { throw ScriptFailed(arguments: ["start"], output: output) }
    return OwnPostgresServer(directory: directory, location: try PostgresLocation(url: url))
  }

  /// Stops the server, keeping its data: every connection to it ends.
  func down() async throws { _ = try await Self.run(["down", directory]) }

  /// Starts it again on the same socket and port.
  func up() async throws { _ = try await Self.run(["up", directory]) }

  /// Stops it and removes its directory.
  func remove() async { _ = try? await Self.run(["stop", directory]) }

  /// Runs the script off the cooperative pool (it waits for the server) and returns its output.
  private static func run(_ arguments: [String]) async throws -> String {
    let process = try ChildProcess(arguments, executable: script)
    let (status, stdout, stderr) = await withCheckedContinuation { continuation in
      DispatchQueue.global().async { continuation.resume(returning: process.finish()) }
    }
    guard status == 0 else { throw ScriptFailed(arguments: arguments, output: stdout + stderr) }
    return stdout
  }

  struct ScriptFailed: Error, CustomStringConvertible {
    var arguments: [String]
    var output: String
    var description: String { "scripts/postgres-test-server \(arguments.joined(separator: " ")) failed: \(output)" }
  }
}
