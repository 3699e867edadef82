import Foundation
import StoreSimulator
import Testing
import TollgateCore
import TollgateDemo
import TollgateTesting
import TollgateWorker

/// Issue 24, items 8, 9 and 3: Google Play's and the Amazon Appstore's plan changes, refunds and
/// trial conversions, as the exact sequence of webhook deliveries a listener receives.
@Suite("Event story end to end: Google Play and Amazon", .serialized)
struct EventStoryStoresEndToEndTests {
  static let day: Int64 = 86_400_000

  @Test("Google: an upgrade (linked token) is one product_changed; a refund one refunded; a chargeback one revoked")
  func google() async throws {
    try await withHookedStack { stack, hooks in
      let (basic, _) = try await stack.googleBuyAndSubmit(Stack.basic, userId: "g-up")
      let (refund, _) = try await stack.googleBuyAndSubmit(userId: "g-refund")
      let (charge, _) = try await stack.googleBuyAndSubmit(userId: "g-charge")
      _ = try await stack.sim.advance(byMs: 2 * Self.day)

      let changed = try await stack.sim.googleChangeProduct(basic.purchaseToken, to: Stack.premium)
      let newToken = try #require(changed.replacedByToken)
      #expect(
        try await hooks.awaiting("product_changed", for: "g-up", stack: stack) == ["purchased", "product_changed"])
      let payload = try #require(hooks.payloads("g-up").last)
      #expect(payload["storeSubscriptionId"] as? String == newToken)
      let change = try #require(payload["productChange"] as? [String: Any])
      #expect(change["direction"] as? String == "upgrade")
      #expect(change["fromStoreSubscriptionId"] as? String == basic.purchaseToken)
      #expect(change["fromProductId"] as? String == Stack.basic && change["toProductId"] as? String == Stack.premium)
      #expect(payload["environment"] as? String == "production")
      // Google reports the plan's recurring price and the buyer's region.
      #expect((payload["priceMilli"] as? NSNumber)?.int64Value ?? 0 > 0 && payload["currency"] as? String == "USD")
      #expect(payload["storefront"] as? String == "US")

      _ = try await stack.sim.googleRefund(refund.purchaseToken)
      #expect(try await hooks.awaiting("refunded", for: "g-refund", stack: stack) == ["purchased", "refunded"])
      #expect(hooks.payloads("g-refund").last?["reason"] as? String == "refunded")

      _ = try await stack.sim.googleRefund(charge.purchaseToken, voidedReason: 7, voidedSource: 2)
      #expect(try await hooks.awaiting("revoked", for: "g-charge", stack: stack) == ["purchased", "revoked"])
      #expect(hooks.payloads("g-charge").last?["reason"] as? String == "revoked")

      // The daily sweep reads the voided purchases again: nothing new to tell.
      _ = try await stack.sim.advance(byMs: 2 * Self.day)
      try await stack.settle()
      #expect(hooks.kinds("g-refund") == ["purchased", "refunded"])
      #expect(hooks.kinds("g-charge") == ["purchased", "revoked"])
      #expect(hooks.kinds("g-up") == ["purchased", "product_changed"])
    }
  }

  @Test("Amazon: a tier change (even at the instant of purchase) is one product_changed; a trial converts once")
  func amazon() async throws {
    try await withHookedStack { stack, hooks in
      _ = try await eventually { try stack.sim.amazonNotificationEndpoint() == "confirmed" }
      let basic = try await stack.local.amazonBuy(Stack.basic)
      _ = try await stack.local.amazonSubmit(receiptId: basic.receiptId, amazonUserId: basic.userId, userId: "z-up")
      let trial = try await stack.local.amazonBuy(freeTrial: true)
      _ = try await stack.local.amazonSubmit(receiptId: trial.receiptId, amazonUserId: trial.userId, userId: "z-trial")
      // Bought and moved up a tier at the same instant.
      let instant = try await stack.local.amazonBuy(Stack.basic)
      _ = try await stack.local.amazonSubmit(
        receiptId: instant.receiptId, amazonUserId: instant.userId, userId: "z-instant")
      _ = try await stack.sim.amazonChangeTier(instant.receiptId, to: Stack.premium, immediate: true)
      #expect(
        try await hooks.awaiting("product_changed", for: "z-instant", stack: stack) == ["purchased", "product_changed"])
      #expect(try await stack.until("z-instant") { $0.active }.active)

      _ = try await stack.sim.advance(byMs: 2 * Self.day)
      _ = try await stack.sim.amazonChangeTier(basic.receiptId, to: Stack.premium, immediate: true)
      #expect(
        try await hooks.awaiting("product_changed", for: "z-up", stack: stack) == ["purchased", "product_changed"])
      let change = try #require(hooks.payloads("z-up").last?["productChange"] as? [String: Any])
      #expect(change["direction"] as? String == "upgrade")
      #expect(change["fromStoreSubscriptionId"] as? String == basic.receiptId)

      _ = try await stack.sim.advance(byMs: 8 * Self.day)
      #expect(
        try await hooks.awaiting("trial_converted", for: "z-trial", stack: stack) == ["purchased", "trial_converted"])
      #expect(hooks.kinds("z-up") == ["purchased", "product_changed"])
      #expect(hooks.kinds("z-instant") == ["purchased", "product_changed"])
    }
  }
}
