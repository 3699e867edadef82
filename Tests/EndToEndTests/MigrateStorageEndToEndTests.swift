import Foundation
import Testing
import TollgateTesting

/// `tollgate migrate-storage` as a process: an SQLite database seeded by `tollgate seed` moves to
/// PostgreSQL, and `tollgate serve` on PostgreSQL answers IsSubscriber as `serve` on the file did.
@Suite("tollgate migrate-storage, as a process")
struct MigrateStorageEndToEndTests {
  static let users = ["user-0", "user-3", "user-7", "user-11", "nobody"]

  /// `query is-subscriber USER premium --json` for each of `users` against a `serve` on `database`.
  static func answers(database: String) async throws -> [String] {
    let serve = try ChildProcess(["serve", "--listen", "127.0.0.1:0", "--database", database, "--log-level", "warning"])
    defer { serve.terminate() }
    let line = try #require(await serve.waitForLine(containing: "listening on"), "serve did not start on \(database)")
    let address = try #require(
      line.split(separator: " ").first { $0.hasPrefix("127.0.0.1:") }.map { $0.trimmingCharacters(in: [","]) })
    var answers: [String] = []
    for user in users {
      let result = try await ChildProcess.runDetached([
        "query", "is-subscriber", user, "premium", "--server", address, "--json",
      ])
      #expect(result.status == (user == "nobody" ? 1 : 0), "\(user): \(result.stderr)")
      // The answer without the time it was evaluated at (the only field that changes between runs).
      var object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
      object["evaluatedAtMs"] = nil
      answers.append(
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: .sortedKeys), as: UTF8.self))
    }
    return answers
  }

  @Test("SQLite seeded, copied to PostgreSQL: serve on PostgreSQL answers as before; a second copy is refused")
  func sqliteToPostgres() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let file = dir.file("tollgate.sqlite")
    let seeded = try await ChildProcess.runDetached(["seed", "--database", file, "--users", "2500"])
    #expect(seeded.status == 0, "\(seeded.stderr)")
    let before = try await Self.answers(database: file)
    let active = try before.map { answer in
      (try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any])?["active"] as? Bool
    }
    #expect(active == [true, true, true, true, false], "\(before)")

    let postgres = try await TestPostgres.freshDatabase().description
    let copy = try await ChildProcess.runDetached([
      "migrate-storage", "--from", "sqlite:" + file, "--to", postgres, "--batch-size", "1000",
    ])
    #expect(copy.status == 0, "\(copy.stderr)")
    #expect(copy.stdout.contains("entitlements 2500"), "\(copy.stdout)")
    #expect(copy.stdout.contains("change_feed 2500"), "\(copy.stdout)")
    #expect(copy.stderr.contains("entitlements: 2500/2500 copied"), "\(copy.stderr)")

    let after = try await Self.answers(database: postgres)
    #expect(after == before)

    let again = try await ChildProcess.runDetached(["migrate-storage", "--from", file, "--to", postgres])
    #expect(again.status != 0)
    #expect(again.stderr.contains("already holds Tollgate data (users: 2500 rows"), "\(again.stderr)")
  }
}
