import Foundation
import Testing
import TollgateSQLite
import TollgateTesting

/// Issue 29: `tollgate query health` exits 0 only on SERVING, so a probe can take the exit alone.
/// `serve` as a process on SQLite; its database is locked by another connection (exclusive
/// locking mode: nobody else may even read it, as a database server that is down), so the
/// replica answers from memory and says DEGRADED once its change feed is stale.
@Suite("query health's exit status against serve as a process", .serialized)
struct QueryHealthEndToEndTests {
  @Test("SERVING exits 0; DEGRADED (the database cannot be read) exits 1 and prints why; SERVING again exits 0")
  func degradedExitsOne() async throws {
    let dir = try TemporaryDirectory(prefix: "tollgate-query-health")
    defer { dir.remove() }
    let database = dir.file("tollgate.sqlite")
    let serve = try await ServeAccessEndToEndTests.serve(["listen": "127.0.0.1:0", "database": database], in: dir)
    defer {
      serve.process.terminate()
      _ = serve.process.finish()
    }
    func health() async throws -> (status: Int32, answer: String, json: [String: Any]) {
      let run = try await ChildProcess.runDetached(["query", "health", "--server", serve.tcp, "--json"])
      let json = (try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]) ?? [:]
      return (run.status, json["status"] as? String ?? "", json)
    }

    var serving = try await health()
    for _ in 0..<100 where serving.answer != "serving" {
      try await Task.sleep(for: .milliseconds(100))
      serving = try await health()
    }
    #expect(serving.answer == "serving" && serving.status == 0, "\(serving)")

    // Held until the connection closes (set to nil below).
    var lock: Connection? = try Connection(path: database)
    try lock?.execute("PRAGMA locking_mode = EXCLUSIVE")
    try lock?.execute("BEGIN EXCLUSIVE")
    try lock?.execute("COMMIT")
    var degraded = try await health()
    for _ in 0..<200 where degraded.answer == "serving" {
      try await Task.sleep(for: .milliseconds(100))
      degraded = try await health()
    }
    #expect(degraded.answer == "degraded", "\(degraded)")
    #expect(degraded.status == 1, "DEGRADED exits 1: \(degraded)")
    #expect((degraded.json["reason"] as? String ?? "").isEmpty == false, "\(degraded)")
    let text = try await ChildProcess.runDetached(["query", "health", "--server", serve.tcp])
    #expect(text.status == 1 && text.stdout.lowercased().contains("degraded"), "\(text.stdout)")

    lock = nil
    var again = try await health()
    for _ in 0..<200 where again.answer != "serving" {
      try await Task.sleep(for: .milliseconds(100))
      again = try await health()
    }
    #expect(again.answer == "serving" && again.status == 0, "\(again)")
  }
}
