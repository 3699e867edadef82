import Foundation
import Testing
import TollgateTesting

/// Issue 29: `tollgate query health` exits 0 only on SERVING, so a probe can take the exit alone.
/// `serve` as a process on SQLite that reads its change feed every 10 s (`service.feedPollMs`, the
/// longest allowed) and sees no write: its last read grows older than the feed's staleness bound
/// (5 s) and Health says DEGRADED ("answers may be stale"), as it does when the database cannot be
/// read. (NOT_SERVING exits 1 too: CommandLineEndToEndTests deletes the database under serve.)
@Suite("query health's exit status against serve as a process", .serialized)
struct QueryHealthEndToEndTests {
  @Test("SERVING exits 0; DEGRADED (a stale change feed) exits 1 and prints why")
  func degradedExitsOne() async throws {
    let dir = try TemporaryDirectory(prefix: "tollgate-query-health")
    defer { dir.remove() }
    let serve = try await ServeAccessEndToEndTests.serve(
      ["listen": "127.0.0.1:0", "database": dir.file("tollgate.sqlite"), "feedPollMs": 10_000], in: dir)
    defer {
      serve.process.terminate()
      _ = serve.process.finish()
    }
    func health() async throws -> (status: Int32, answer: String, reason: String) {
      let run = try await ChildProcess.runDetached(["query", "health", "--server", serve.tcp, "--json"])
      let json = (try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]) ?? [:]
      return (run.status, json["status"] as? String ?? "", json["reason"] as? String ?? "")
    }

    // Just started: the feed was read at start.
    let serving = try await health()
    #expect(serving.answer == "serving" && serving.status == 0, "\(serving)")

    var degraded = serving
    for _ in 0..<150 where degraded.answer != "degraded" {
      try await Task.sleep(for: .milliseconds(100))
      degraded = try await health()
    }
    #expect(degraded.answer == "degraded", "\(degraded)")
    #expect(degraded.status == 1, "DEGRADED exits 1: \(degraded)")
    #expect(degraded.reason.contains("stale"), "\(degraded)")
    let text = try await ChildProcess.runDetached(["query", "health", "--server", serve.tcp])
    #expect(text.status == 1, "\(text.stdout)")
    #expect(text.stdout.lowercased().contains("degraded"), "\(text.stdout)")
  }
}
