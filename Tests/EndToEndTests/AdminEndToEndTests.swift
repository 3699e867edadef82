import Foundation
import Testing
import TollgateClient
import TollgateCore
import TollgateDemo
import TollgateSQLite
import TollgateServer
import TollgateService
import TollgateStorage
import TollgateTesting
import TollgateWorker
import TollgateWorkerSQLite

/// `grant`, `revoke`, `reverify` and `explain` against a running stack: their writes reach the
/// service through the change feed like any other.
@Suite("Admin commands end to end", .serialized)
struct AdminEndToEndTests {
  @Test("grant then revoke a promotional entitlement; explain shows the deciding source and its evidence")
  func grantRevokeExplain() async throws {
    try await withStack { stack in
      let admin = WorkerAdmin(
        storage: try SQLiteWorkerStorage(path: stack.local.databasePath, nowMs: stack.local.nowMs()),
        catalog: stack.local.configuration.catalog, nowMs: stack.local.nowMs)
      let until = stack.local.nowMs() + 7 * 86_400_000
      _ = try await admin.grant(userId: "vip", entitlement: "premium", untilMs: until, note: "support ticket 42")
      let granted = try await stack.until("vip") { $0.active }
      #expect(granted.active)
      #expect(granted.store == .promotional)
      #expect(granted.expiresAtMs == until)

      let explained = try await admin.explain(userId: "vip", entitlement: "premium")
      #expect(explained.active)
      #expect(explained.sources.first?.rule == "promotional_grant")
      #expect(explained.sources.first?.grantNote == "support ticket 42")

      #expect(try await admin.revoke(userId: "vip", entitlement: "premium") == 1)
      #expect(!(try await stack.until("vip") { !$0.active }).active)

      // A store purchase: explain names the rule and the signed payloads it was decided from.
      let (purchase, _) = try await stack.buyAndSubmit(userId: "buyer")
      let store = try await admin.explain(userId: "buyer", entitlement: "premium")
      let source = try #require(store.sources.first)
      #expect(source.decides)
      #expect(source.rule == "current_period")
      #expect(source.evidenceSource == "app_store_server_api")
      #expect(
        source.payloads.contains {
          $0.kind == "transaction" && $0.id == purchase.transactionId && $0.sha256.count == 64
        })
      #expect(source.payloads.contains { $0.kind == "renewal_info" })
      #expect(store.text.contains("current_period"))

      // reverify makes the worker look again now.
      try await stack.settle()
      let before = try await stack.answer("buyer").verifiedAtMs
      #expect(try await admin.reverify(userId: "buyer") == 1)
      let after = try await stack.until("buyer") { $0.verifiedAtMs > before }
      #expect(after.verifiedAtMs > before)
    }
  }

  @Test("grant, revoke, explain and reverify run with --database alone, with the catalog the worker saved")
  func databaseOnly() async throws {
    try await withStack { stack in
      let database = stack.local.databasePath
      let grant = try await ChildProcess.runDetached([
        "grant", "vip", "premium", "--until", "7d", "--note", "ticket 7", "--database", database,
      ])
      #expect(grant.status == 0, "\(grant.stderr)")
      #expect(grant.stdout.contains("granted premium to vip"))
      #expect(try await stack.until("vip") { $0.active }.store == .promotional)

      let explain = try await ChildProcess.runDetached(["explain", "vip", "premium", "--json", "--database", database])
      #expect(explain.status == 0, "\(explain.stderr)")
      let object = try #require(try JSONSerialization.jsonObject(with: Data(explain.stdout.utf8)) as? [String: Any])
      #expect(object["active"] as? Bool == true)
      let sources = try #require(object["sources"] as? [[String: Any]])
      #expect(sources.first?["rule"] as? String == "promotional_grant")
      #expect(sources.first?["grantNote"] as? String == "ticket 7")

      let revoke = try await ChildProcess.runDetached(["revoke", "vip", "premium", "--database", database])
      #expect(revoke.status == 0, "\(revoke.stderr)")
      #expect(revoke.stdout.contains("revoked 1 grant(s)"))
      #expect(!(try await stack.until("vip") { !$0.active }).active)

      // reverify needs no store credentials: it makes the chain due, and the worker looks again.
      _ = try await stack.buyAndSubmit(userId: "buyer")
      try await stack.settle()
      let before = try await stack.answer("buyer").verifiedAtMs
      let reverify = try await ChildProcess.runDetached(["reverify", "buyer", "--database", database])
      #expect(reverify.status == 0, "\(reverify.stderr)")
      #expect(reverify.stdout.contains("1 subscription(s) of buyer queued"))
      #expect(try await stack.until("buyer") { $0.verifiedAtMs > before }.verifiedAtMs > before)
    }
  }

  @Test("without --config on a database no worker has run on, grant says why in one line")
  func noCatalog() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    // A database the service created (serve --create), that no worker has run on.
    _ = try SQLiteEntitlementStorage(path: dir.file("fresh.sqlite"), nowMs: 1)
    let grant = try await ChildProcess.runDetached([
      "grant", "vip", "premium", "--until", "7d", "--database", dir.file("fresh.sqlite"),
    ])
    #expect(grant.status != 0)
    let lines = grant.stderr.split(separator: "\n").filter { !$0.isEmpty }
    #expect(lines.count == 1, "\(grant.stderr)")
    #expect(grant.stderr.contains("no product catalog"))
    #expect(grant.stderr.contains("--config"))
    #expect(!grant.stderr.contains("USAGE"))
  }
}
