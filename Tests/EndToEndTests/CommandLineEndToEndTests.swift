import Foundation
import Testing
import TollgateCore
import TollgateSQLite
import TollgateService
import TollgateStorage
import TollgateTesting

@Suite("tollgate serve and query, as processes", .serialized)
struct CommandLineEndToEndTests {
  @Test("serve answers query is-subscriber / subscription / health, in text and JSON, and stops cleanly on SIGTERM")
  func serveAndQuery() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let database = dir.file("tollgate.sqlite")
    let expires = SystemClock.nowMs() + 3_600_000
    let storage = try SQLiteEntitlementStorage(path: database, nowMs: 1)
    try await storage.replaceEntitlements(
      userId: "alice",
      with: [.sample(userId: "alice", state: .gracePeriod, expiresAtMs: expires - 1_000, accessEndsAtMs: expires)],
      reason: "seed", nowMs: 1)

    let serve = try ChildProcess(["serve", "--listen", "127.0.0.1:0", "--database", database, "--log-level", "warning"])
    defer { serve.terminate() }
    let line = try #require(await serve.waitForLine(containing: "listening on"), "serve did not start")
    let address = try #require(
      line.split(separator: " ").first { $0.hasPrefix("127.0.0.1:") }.map { $0.trimmingCharacters(in: [","]) })

    let json = try await ChildProcess.runDetached([
      "query", "is-subscriber", "alice", "premium", "--server", address, "--json",
    ])
    #expect(json.status == 0, "\(json.stderr)")
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
    #expect(object["active"] as? Bool == true)
    #expect(object["state"] as? String == "grace_period")
    #expect((object["expiresAtMs"] as? NSNumber)?.int64Value == expires)
    #expect(object["storeSubscriptionId"] as? String == "otx-alice")
    #expect(object["accessLevel"] as? String == "full")

    let no = try await ChildProcess.runDetached([
      "query", "is-subscriber", "bob", "premium", "--server", address, "--json",
    ])
    #expect(no.status == 1)
    let noObject = try #require(try JSONSerialization.jsonObject(with: Data(no.stdout.utf8)) as? [String: Any])
    #expect(noObject["active"] as? Bool == false)

    let text = try await ChildProcess.runDetached(["query", "subscription", "alice", "--server", address])
    #expect(text.status == 0)
    #expect(text.stdout.contains("premium: ACTIVE, grace_period"))

    let subscriptionJSON = try await ChildProcess.runDetached([
      "query", "subscription", "alice", "--server", address, "--json",
    ])
    let subscription = try #require(
      try JSONSerialization.jsonObject(with: Data(subscriptionJSON.stdout.utf8)) as? [String: Any])
    #expect(subscription["userId"] as? String == "alice")
    let entitlements = try #require(subscription["entitlements"] as? [[String: Any]])
    #expect(entitlements.first?["entitlement"] as? String == "premium")
    #expect((entitlements.first?["expiresAtMs"] as? NSNumber)?.int64Value == expires)
    #expect(entitlements.first?["willRenew"] is Bool, "defaults are printed")
    #expect(entitlements.first?["accessLevel"] as? String == "full")
    let subscriptions = try #require(subscription["subscriptions"] as? [[String: Any]])
    #expect(subscriptions.first?["environment"] as? String != nil)
    #expect((subscriptions.first?["entitlements"] as? [String]) == ["premium"])

    let missing = try await ChildProcess.runDetached(["query", "subscription", "nobody", "--server", address])
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("notFound"))

    let health = try await ChildProcess.runDetached(["query", "health", "--server", address, "--json"])
    let healthObject = try #require(try JSONSerialization.jsonObject(with: Data(health.stdout.utf8)) as? [String: Any])
    #expect(healthObject["status"] as? String == "serving")
    #expect((healthObject["indexUsers"] as? NSNumber)?.intValue == 1)
    #expect(health.status == 0, "serving exits 0")

    // The database file is deleted under the service: it answers NOT_SERVING, and the exit says so.
    try FileManager.default.removeItem(atPath: database)
    var down = try await ChildProcess.runDetached(["query", "health", "--server", address, "--json"])
    for _ in 0..<100 where !down.stdout.contains("not_serving") {
      try await Task.sleep(for: .milliseconds(100))
      down = try await ChildProcess.runDetached(["query", "health", "--server", address, "--json"])
    }
    #expect(down.stdout.contains("not_serving"), "the service never said NOT_SERVING: \(down.stdout)")
    #expect(down.status == 1, "NOT_SERVING exits 1: \(down.stdout)")
    let downText = try await ChildProcess.runDetached(["query", "health", "--server", address])
    #expect(downText.status == 1)

    serve.process.terminate()  // SIGTERM
    let finished = serve.finish()
    #expect(finished.status == 0, "serve exited \(finished.status): \(finished.stderr)")
  }

  @Test("bad flags and an unreachable server give clear errors and non-zero exits")
  func badUsage() async throws {
    let noDatabase = try await ChildProcess.runDetached(["serve", "--listen", "127.0.0.1:0"])
    #expect(noDatabase.status != 0)
    #expect(noDatabase.stderr.contains("--database"))
    let badAddress = try await ChildProcess.runDetached(["query", "health", "--server", "nonsense"])
    #expect(badAddress.status != 0)
    let unreachable = try await ChildProcess.runDetached([
      "query", "health", "--server", "127.0.0.1:1", "--timeout-ms", "500",
    ])
    #expect(unreachable.status == 2)
    #expect(unreachable.stderr.contains("connectionFailed"))
  }
}
