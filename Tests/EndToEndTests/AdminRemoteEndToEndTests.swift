import Foundation
import Logging
import Testing
import TollgateClient
import TollgateDemo
import TollgateTesting

/// Issue 28: the admin commands as a support engineer types them, run as `tollgate` processes with
/// `--server` against `tollgate serve` (a process, its admin side on the stack's database) beside a
/// real worker and the App Store simulated over HTTP. What they print and their exit statuses are
/// checked against what the service then answers an app.
@Suite("Admin commands with --server against a running serve", .serialized)
struct AdminRemoteEndToEndTests {
  static let day: Int64 = 86_400_000

  /// `tollgate ARGUMENTS --server 127.0.0.1:PORT --caller CALLER` with the caller's key in
  /// TOLLGATE_KEY, as a process.
  static func run(_ arguments: [String], on serve: SupportServe, as caller: String = "support") async throws
    -> (status: Int32, stdout: String, stderr: String)
  {
    try await ChildProcess.runDetached(
      arguments + ["--server", "127.0.0.1:\(serve.port)", "--caller", caller],
      environment: ["TOLLGATE_KEY": caller == "support" ? SupportServe.supportKey : SupportServe.appKey])
  }

  @Test("lookup, grant, explain, timeline, revoke, reverify and erase-user through the fast port; a reader is refused")
  func remoteCommands() async throws {
    let dir = try TemporaryDirectory(prefix: "admin-remote-e2e")
    defer { dir.remove() }
    try await LocalStack.run(directory: dir.path, logger: Logger(label: "admin.remote.e2e")) { stack in
      let apple = try await stack.buy()
      #expect(try await stack.submit(apple.signedTransaction, userId: "alice").status == .verified)
      let serve = try await SupportServe.start(beside: stack, in: dir)
      let app = serve.client("app")
      do {
        try await Self.scenario(serve, app: app, originalTransactionId: apple.originalTransactionId)
        try await Self.local(stack, serve, originalTransactionId: apple.originalTransactionId)
      } catch {
        await app.close()
        serve.stop()
        throw error
      }
      await app.close()
      serve.stop()
    }
  }

  static func scenario(_ serve: SupportServe, app: TollgateClient, originalTransactionId: String) async throws {
    // lookup: the chain and whom it is bound to; an id nothing matches exits 1.
    let lookup = try await run(["lookup", originalTransactionId], on: serve)
    #expect(lookup.status == 0, "\(lookup.stderr)")
    #expect(lookup.stdout.contains("user alice") && lookup.stdout.contains(originalTransactionId), "\(lookup.stdout)")
    let json = try await run(
      ["lookup", originalTransactionId, "--kind", "app_store_original_transaction_id", "--json"], on: serve)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
    let matches = try #require(object["matches"] as? [[String: Any]])
    #expect(matches.first?["userId"] as? String == "alice")
    #expect(matches.first?["matchedAs"] as? String == "IDENTIFIER_KIND_APP_STORE_ORIGINAL_TRANSACTION_ID")
    #expect(try await run(["lookup", "GPA.0000-0000-0000-00000"], on: serve).status == 1)

    // grant: `--until 30d` becomes RFC 3339 on this machine; the app sees it at once.
    let grantedAt = Int64(Date().timeIntervalSince1970 * 1000)
    let grant = try await run(["grant", "vip", "premium", "--until", "30d", "--note", "ticket 7"], on: serve)
    #expect(grant.status == 0, "\(grant.stderr)")
    #expect(grant.stdout.contains("granted premium to vip until 20"), "\(grant.stdout)")
    let vip = try await app.isSubscriber(userId: "vip", entitlement: "premium")
    #expect(vip.active && vip.store == .promotional)
    #expect(abs(vip.expiresAtMs - (grantedAt + 30 * day)) < day, "\(vip.expiresAtMs)")
    // `--until` in ms reaches the service to the millisecond (no Double seconds on the way: .001 once
    // became .000), and a time past year 9999 has no RFC 3339 text: refused here, nothing sent.
    let exact = try await run(["grant", "vip-exact", "premium", "--until", "4102444800001"], on: serve)
    #expect(exact.status == 0 && exact.stdout.contains("until 2100-01-01T00:00:00.001Z"), "\(exact.stdout)")
    #expect(try await app.isSubscriber(userId: "vip-exact", entitlement: "premium").expiresAtMs == 4_102_444_800_001)
    // An RFC 3339 `--until` with a fraction is read exactly too (Foundation's ISO 8601 refused it).
    let fraction = try await run(
      ["grant", "vip-fraction", "premium", "--until", "2100-01-01T01:00:00.007+01:00"], on: serve)
    #expect(fraction.status == 0 && fraction.stdout.contains("until 2100-01-01T00:00:00.007Z"), "\(fraction.stderr)")
    let past9999 = try await run(["grant", "vip-exact", "premium", "--until", "253402300800000"], on: serve)
    #expect(past9999.status != 0 && past9999.stderr.contains("years 0001 to 9999"), "\(past9999.stderr)")

    // explain and timeline read the same state.
    let explain = try await run(["explain", "vip", "premium", "--json"], on: serve)
    #expect(explain.status == 0, "\(explain.stderr)")
    let explained = try #require(try JSONSerialization.jsonObject(with: Data(explain.stdout.utf8)) as? [String: Any])
    #expect(explained["active"] as? Bool == true)
    #expect(try await run(["explain", "alice", "premium"], on: serve).stdout.contains("alice HAS premium"))
    let timeline = try await run(["timeline", "alice"], on: serve)
    #expect(timeline.status == 0, "\(timeline.stderr)")
    #expect(timeline.stdout.contains("timeline of alice") && timeline.stdout.contains(originalTransactionId))
    #expect(try await run(["timeline", "nobody-at-all"], on: serve).status == 1)

    // revoke: once, then nothing is left to revoke (exit 1, as the local command).
    let revoke = try await run(["revoke", "vip", "premium", "--note", "ticket 7 closed"], on: serve)
    #expect(revoke.status == 0 && revoke.stdout.contains("revoked 1 grant(s)"), "\(revoke.stdout) \(revoke.stderr)")
    #expect(!(try await app.isSubscriber(userId: "vip", entitlement: "premium").active))
    #expect(try await run(["revoke", "vip", "premium"], on: serve).status == 1)
    let reverify = try await run(["reverify", "alice"], on: serve)
    #expect(reverify.status == 0 && reverify.stdout.contains("1 subscription(s) of alice"), "\(reverify.stdout)")

    // A caller without the admin scope: refused in one line, exit 2, nothing written.
    let refused = try await run(["grant", "mallory", "premium", "--until", "30d"], on: serve, as: "app")
    #expect(refused.status == 2)
    #expect(refused.stderr.contains("permissionDenied") && refused.stderr.contains("admin"), "\(refused.stderr)")
    #expect(!(try await app.isSubscriber(userId: "mallory", entitlement: "premium").active))

    // erase-user: refused without --yes, counted with --dry-run, then done; alice is gone.
    #expect(try await run(["erase-user", "alice"], on: serve).status != 0)
    let dryRun = try await run(["erase-user", "alice", "--dry-run"], on: serve)
    #expect(dryRun.status == 0 && dryRun.stdout.contains("would erase alice"), "\(dryRun.stdout) \(dryRun.stderr)")
    #expect(dryRun.stdout.contains("subscriptions unbound: 1"), "\(dryRun.stdout)")
    #expect(try await app.isSubscriber(userId: "alice", entitlement: "premium").active, "a dry run erases nothing")
    let erase = try await run(["erase-user", "alice", "--yes"], on: serve)
    #expect(erase.status == 0 && erase.stdout.contains("erased alice"), "\(erase.stdout) \(erase.stderr)")
    #expect(!(try await app.isSubscriber(userId: "alice", entitlement: "premium").active))
    let after = try await run(["lookup", originalTransactionId], on: serve)
    #expect(after.stdout.contains("bound to nobody") && after.stdout.contains("erased"), "\(after.stdout)")
  }

  /// The same commands with --database instead of --server run the same `AdminResponder` on the
  /// database here: they print what the service printed.
  static func local(_ stack: LocalStack, _ serve: SupportServe, originalTransactionId: String) async throws {
    let here = ["--database", stack.databasePath, "--follow-clock", stack.sim.baseURL]
    let remote = try await run(["lookup", originalTransactionId], on: serve)
    let local = try await ChildProcess.runDetached(["lookup", originalTransactionId] + here)
    #expect(local.status == 0, "\(local.stderr)")
    #expect(local.stdout == remote.stdout)
    let timeline = try await ChildProcess.runDetached(["timeline", "alice"] + here)
    #expect(timeline.status == 1, "alice was erased: \(timeline.stdout) \(timeline.stderr)")
    let mixed = try await ChildProcess.runDetached(
      ["timeline", "alice", "--server", "127.0.0.1:\(serve.port)", "--database", stack.databasePath])
    #expect(mixed.status == 2 && mixed.stderr.contains("leave out --database"), "\(mixed.stderr)")
  }
}
