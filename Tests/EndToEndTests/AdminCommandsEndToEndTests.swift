import Foundation
import StoreSimulator
import Testing
import TollgateCore
import TollgateTesting
import TollgateWorker

/// Issue 24 item 6: `grant`, `revoke` and `explain` as processes, against a running stack that
/// follows the simulator's clock: they refuse what they cannot do in one clear line, run on the
/// deployment's clock and by the worker's settings, and `explain` says where a purchase went.
@Suite("Admin commands: checks, clock, settings, ownership", .serialized)
struct AdminCommandsEndToEndTests {
  static let day: Int64 = 86_400_000

  /// One failed admin command: a non-zero exit, no crash, one line on stderr, no usage.
  func expectRefused(_ arguments: [String], saying words: String) async throws {
    let result = try await ChildProcess.runDetached(arguments)
    #expect(result.status == 1, "\(arguments.prefix(3)): exit \(result.status): \(result.stderr)")
    let lines = result.stderr.split(separator: "\n").filter { !$0.isEmpty }
    #expect(lines.count == 1, "\(result.stderr)")
    #expect(result.stderr.contains(words), "\(result.stderr)")
    #expect(!result.stderr.contains("USAGE"))
  }

  @Test("grant refuses an entitlement the catalog does not name, a past time, an empty or 300-byte user id")
  func grantChecks() async throws {
    try await withStack { stack in
      let database = stack.local.databasePath
      let follow = ["--database", database, "--follow-clock", stack.sim.baseURL]
      try await expectRefused(
        ["grant", "vip", "platinum", "--until", "7d"] + follow, saying: "no entitlement \"platinum\"")
      try await expectRefused(["grant", "vip", "premium", "--until", "1000"] + follow, saying: "is not after now")
      // A moment before the simulator's now, though after the machine's (the store runs ahead).
      _ = try await stack.sim.advance(byMs: 60 * Self.day)
      let yesterday = String(stack.sim.clockNowMs - Self.day)
      try await expectRefused(["grant", "vip", "premium", "--until", yesterday] + follow, saying: "is not after now")
      try await expectRefused(["grant", "", "premium", "--until", "7d"] + follow, saying: "user_id is required")
      let long = String(repeating: "u", count: 300)
      try await expectRefused(["grant", long, "premium", "--until", "7d"] + follow, saying: "longer than 256 bytes")
      try await expectRefused(["revoke", "", "premium"] + follow, saying: "user_id is required")
      try await expectRefused(["explain", long, "premium"] + follow, saying: "longer than 256 bytes")
      #expect(try await stack.worker.storage.grants(userId: "vip").isEmpty, "nothing was written")
      #expect(try await stack.worker.storage.grants(userId: long).isEmpty)
    }
  }

  @Test("on the simulator's clock: a 30-day grant after an advance is active; explain agrees with IsSubscriber")
  func simulatorClock() async throws {
    try await withStack(Self.simulatorClock)
  }

  // A static function, not a closure: Swift 6.3.1 miscompiled `until`'s condition in this closure
  // (it kept reading an active answer as inactive until the timeout).
  static func simulatorClock(_ stack: Stack) async throws {
    let database = stack.local.databasePath
    let follow = ["--database", database, "--follow-clock", stack.sim.baseURL]
    let (purchase, _) = try await stack.buyAndSubmit(userId: "lapsed")
    _ = try await stack.sim.setAutoRenew(purchase.originalTransactionId, enabled: false)
    _ = try await stack.sim.advance(byMs: 40 * Self.day)
    #expect(!(try await stack.until("lapsed") { !$0.active }.active))

    let grantedFrom = stack.sim.followedNowMs
    let grant = try await ChildProcess.runDetached(
      ["grant", "vip", "premium", "--until", "30d", "--note", "ticket 3"] + follow)
    #expect(grant.status == 0, "\(grant.stderr)")
    let granted = try await stack.until("vip", timeout: .seconds(20)) { $0.active }
    #expect(granted.active, "a 30-day grant on the deployment's clock is not over")
    // 30 days from the deployment's clock while the grant ran.
    #expect((grantedFrom + 30 * Self.day...stack.sim.followedNowMs + 30 * Self.day).contains(granted.expiresAtMs))

    for user in ["vip", "lapsed"] {
      let explain = try await ChildProcess.runDetached(["explain", user, "premium", "--json"] + follow)
      #expect(explain.status == 0, "\(explain.stderr)")
      let object = try #require(try JSONSerialization.jsonObject(with: Data(explain.stdout.utf8)) as? [String: Any])
      let answer = try await stack.answer(user)
      #expect(object["active"] as? Bool == answer.active, "\(user): explain and IsSubscriber disagree")
      let at = try #require((object["evaluatedAtMs"] as? NSNumber)?.int64Value)
      #expect(abs(at - stack.sim.followedNowMs) < 60_000, "explain reads the simulator's clock")
    }

    // revoke takes a note, shown with its event.
    let revoke = try await ChildProcess.runDetached(["revoke", "vip", "premium", "--note", "ticket 4"] + follow)
    #expect(revoke.status == 0, "\(revoke.stderr)")
    let revoked = try await stack.worker.storage.events(userId: "vip").last { $0.kind == "grant_revoked" }
    #expect(revoked?.detail == "ticket 4")
  }

  @Test("with --config, a grant recomputes by the worker's settings: a payer under its outage leeway keeps access")
  func workerSettings() async throws {
    let leeway = 20 * Self.day
    // Once a check failed, the next is a minute away: nothing the worker writes meanwhile hides
    // what the grant's recompute wrote.
    let configure: (inout WorkerSettings) -> Void = {
      $0.storeOutageLeewayMs = leeway
      $0.backoffBaseMs = 60_000
      $0.backoffMaxMs = 60_000
    }
    try await withStack(configure: configure) { stack in
      let (_, bought) = try await stack.buyAndSubmit(userId: "payer")
      #expect(bought.status == .verified)
      // Apple cannot be read, and its renewal notice is lost: 10 days past the expiry, past the
      // default 7-day outage leeway and within the worker's 20.
      try stack.sim.addFault(FaultRule(target: "apple.api", mode: .error500, count: nil))
      try stack.sim.addFault(FaultRule(target: "apple.notifications", mode: .drop, count: nil))
      _ = try await stack.sim.advance(byMs: 40 * Self.day)
      let underOutage = try await eventually(timeout: .seconds(20)) {
        try await stack.worker.storage.subscriptions(userId: "payer").first?.reason == "store_unreachable"
      }
      #expect(underOutage != nil, "the worker never evaluated the chain under the outage policy")
      try await stack.settle()
      #expect(try await stack.answer("payer").active)

      var config = try #require(
        try JSONSerialization.jsonObject(with: try JSONEncoder().encode(stack.local.configuration.catalog))
          as? [String: Any])
      config["worker"] = [
        "database": stack.local.databasePath, "storeOutageLeewayMs": leeway, "followClockURL": stack.sim.baseURL,
      ]
      let file = stack.dir.file("worker-config.json")
      try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: file))
      let grant = try await ChildProcess.runDetached([
        "grant", "payer", "basic", "--until", "30d", "--config", file,
      ])
      #expect(grant.status == 0, "\(grant.stderr)")
      #expect(try await stack.until("payer", "basic") { $0.active }.active)
      try await stack.settle()
      #expect(try await stack.answer("payer").active, "the grant's recompute cut a payer the worker keeps")
      let records = try await stack.worker.storage.entitlements(userId: "payer")
      let premium = try #require(records.first { $0.entitlement == "premium" })
      #expect(premium.accessEndsAtMs > stack.sim.followedNowMs, "\(premium)")
    }
  }

  @Test("explain says where a purchase went: transferred away to another user, and a claimant refused")
  func ownership() async throws {
    try await withStack(transferPolicy: .transferToNewest) { stack in
      let (purchase, bought) = try await stack.buyAndSubmit(userId: "first")
      #expect(bought.status == .verified)
      let restored = try stack.sim.restore(purchase.originalTransactionId)
      let moved = try await stack.submit(restored.signedTransaction, userId: "second")
      #expect(moved.status == .verified, "\(moved.rejectionReason)")
      #expect(!(try await stack.until("first") { !$0.active }.active))
      let refused = try await stack.submit(purchase.originalTransactionId, userId: "third")
      #expect(refused.status == .rejected)

      let follow = ["--database", stack.local.databasePath, "--follow-clock", stack.sim.baseURL]
      let first = try await ChildProcess.runDetached(["explain", "first", "premium"] + follow)
      #expect(first.status == 0, "\(first.stderr)")
      #expect(first.stdout.contains("transferred away"), "\(first.stdout)")
      #expect(first.stdout.contains(purchase.originalTransactionId))
      #expect(first.stdout.contains("now belongs to second"), "\(first.stdout)")

      let third = try await ChildProcess.runDetached(["explain", "third", "premium", "--json"] + follow)
      #expect(third.status == 0, "\(third.stderr)")
      let object = try #require(try JSONSerialization.jsonObject(with: Data(third.stdout.utf8)) as? [String: Any])
      let rejected = try #require(object["rejectedSubmissions"] as? [[String: Any]])
      #expect(rejected.count == 1)
      #expect((rejected.first?["reason"] as? String) == refused.rejectionReason)
      let text = try await ChildProcess.runDetached(["explain", "third", "premium"] + follow)
      #expect(text.stdout.contains("submission rejected"), "\(text.stdout)")
    }
  }
}
