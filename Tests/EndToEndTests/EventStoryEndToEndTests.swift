import Foundation
import StoreSimulator
import Testing
import TollgateCore
import TollgateDemo
import TollgateTesting
import TollgateWorker
import TollgateWorkerSQLite

/// Issue 24, items 8–11: the exact sequence of webhook deliveries a listener receives, through the
/// simulator over HTTP, the real worker and a real receiver: plan changes, refunds, trial
/// conversions and grants, in payloads of version 2.
@Suite("Event story end to end: App Store and grants", .serialized)
struct EventStoryEndToEndTests {
  static let day: Int64 = 86_400_000

  @Test("Apple: upgrade, downgrade, an older renewal refunded, a trial that converts: one event each")
  func apple() async throws {
    try await withHookedStack { stack, hooks in
      let (up, _) = try await stack.buyAndSubmit(Stack.basic, userId: "apple-up")
      let (down, _) = try await stack.buyAndSubmit(Stack.premium, userId: "apple-down")
      let (refund, _) = try await stack.buyAndSubmit(Stack.premium, userId: "apple-refund")
      _ = try await stack.buyAndSubmit(Stack.monthly, userId: "apple-trial", offer: "trial")
      _ = try await stack.sim.advance(byMs: Self.day)

      _ = try await stack.sim.changeProduct(up.originalTransactionId, to: Stack.premium)
      #expect(
        try await hooks.awaiting("product_changed", for: "apple-up", stack: stack) == ["purchased", "product_changed"])
      let upgrade = try #require(hooks.payloads("apple-up").last?["productChange"] as? [String: Any])
      #expect(upgrade["direction"] as? String == "upgrade")
      #expect(upgrade["fromProductId"] as? String == Stack.basic && upgrade["toProductId"] as? String == Stack.premium)
      let entitlements = try #require(hooks.payloads("apple-up").last?["entitlements"] as? [[String: Any]])
      #expect(entitlements.contains { $0["entitlement"] as? String == "premium" && $0["active"] as? Bool == true })

      let scheduled = try await stack.sim.changeProduct(down.originalTransactionId, to: Stack.basic)
      #expect(
        try await hooks.awaiting("product_changed", for: "apple-down", stack: stack) == [
          "purchased", "product_changed",
        ])
      let downgrade = try #require(hooks.payloads("apple-down").last?["productChange"] as? [String: Any])
      #expect(downgrade["direction"] as? String == "downgrade")
      #expect((downgrade["effectiveAtMs"] as? NSNumber)?.int64Value == scheduled.expiresDate, "at the next renewal")

      // A month on: every chain renews once (the downgrade takes effect: a renewal, told before).
      _ = try await stack.sim.advance(byMs: 30 * Self.day)
      #expect(
        try await hooks.awaiting("renewed", for: "apple-down", stack: stack) == [
          "purchased", "product_changed", "renewed",
        ])
      #expect(try await hooks.awaiting("renewed", for: "apple-refund", stack: stack) == ["purchased", "renewed"])
      #expect(
        try await hooks.awaiting("trial_converted", for: "apple-trial", stack: stack) == [
          "purchased", "trial_converted",
        ])

      // The first month of a renewed chain is refunded: access stays (the renewal covers now), and
      // the listener hears of it once.
      _ = try await stack.sim.refund(refund.originalTransactionId, transactionId: refund.transactionId)
      #expect(
        try await hooks.awaiting("refunded", for: "apple-refund", stack: stack) == ["purchased", "renewed", "refunded"])
      let refunded = try #require(hooks.payloads("apple-refund").last)
      #expect(refunded["transactionId"] as? String == refund.transactionId)
      #expect(refunded["reason"] as? String == "refunded")
      #expect(try await stack.answer("apple-refund").active)
    }
  }

  @Test("payload version 2: api version, a UUID id, environment, transaction ids, period, expiry, price")
  func payloadVersion2() async throws {
    try await withHookedStack { stack, hooks in
      let (purchase, _) = try await stack.buyAndSubmit(Stack.premium, userId: "v2")
      try await hooks.awaiting("purchased", for: "v2", stack: stack)
      let payload = try #require(hooks.payloads("v2").first)
      #expect(payload["apiVersion"] as? Int == 2)
      let id = try #require(payload["id"] as? String)
      #expect(UUID(uuidString: id) != nil)
      let delivery = try #require(hooks.receiver.recorded.first { $0.jsonBody?["id"] as? String == id })
      #expect(delivery.headers["tollgate-event-id"] == id)
      #expect(payload["environment"] as? String == "sandbox")
      #expect(payload["originalTransactionId"] as? String == purchase.originalTransactionId)
      #expect(payload["transactionId"] as? String == purchase.transactionId)
      #expect(payload["periodType"] as? String == "normal")
      #expect((payload["expiresAtMs"] as? NSNumber)?.int64Value ?? 0 > stack.sim.clockNowMs)
      #expect((payload["priceMilli"] as? NSNumber)?.int64Value ?? 0 > 0)
      #expect(payload["currency"] as? String != nil && payload["storefront"] as? String != nil)
      #expect(payload["state"] as? String == "active")
      let entitlements = try #require(payload["entitlements"] as? [[String: Any]])
      #expect(Set(entitlements.compactMap { $0["entitlement"] as? String }) == ["basic", "premium"])
    }
  }

  @Test("a grant and a revoke each reach the endpoint once, with the note and who did it")
  func grantAndRevoke() async throws {
    try await withHookedStack { stack, hooks in
      let admin = WorkerAdmin(
        storage: try SQLiteWorkerStorage(path: stack.local.databasePath, nowMs: stack.local.nowMs()),
        catalog: stack.local.configuration.catalog, nowMs: stack.local.nowMs)
      let until = stack.local.nowMs() + 7 * Self.day
      _ = try await admin.grant(
        userId: "vip", entitlement: "premium", untilMs: until, note: "support ticket 42", actor: "ana")
      #expect(try await hooks.awaiting("granted", for: "vip", stack: stack) == ["granted"])
      let granted = try #require(hooks.payloads("vip").first)
      let grant = try #require(granted["grant"] as? [String: Any])
      #expect(grant["entitlement"] as? String == "premium" && grant["note"] as? String == "support ticket 42")
      #expect(grant["actor"] as? String == "ana")
      #expect((grant["expiresAtMs"] as? NSNumber)?.int64Value == until)
      #expect(granted["store"] as? String == "promotional")
      let entitlements = try #require(granted["entitlements"] as? [[String: Any]])
      #expect(entitlements.first?["active"] as? Bool == true)

      #expect(try await admin.revoke(userId: "vip", entitlement: "premium", note: "refund via web", actor: "bo") == 1)
      #expect(try await hooks.awaiting("grant_revoked", for: "vip", stack: stack) == ["granted", "grant_revoked"])
      let revoked = try #require(hooks.payloads("vip").last?["grant"] as? [String: Any])
      #expect(revoked["note"] as? String == "refund via web" && revoked["actor"] as? String == "bo")
      let after = try #require(hooks.payloads("vip").last?["entitlements"] as? [[String: Any]])
      #expect(after.first?["active"] as? Bool == false)
    }
  }
}
