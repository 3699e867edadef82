import Foundation
import StoreSimulator
import Testing
import TollgateClient
import TollgateCore
import TollgateDemo
import TollgateServer
import TollgateTesting

/// docs/lifecycle.md's App Store paths through the whole system, and the store misbehaving.
@Suite("Lifecycle paths end to end", .serialized)
struct LifecyclePathsEndToEndTests {
  static let day: Int64 = 86_400_000

  @Test("trial → paid")
  func trialToPaid() async throws {
    try await withStack { stack in
      let (_, response) = try await stack.buyAndSubmit(Stack.monthly, userId: "u", offer: "trial")
      #expect(response.status == .verified)
      #expect(try await stack.answer("u").state == .trial)
      _ = try await stack.sim.advance(byMs: 8 * Self.day)
      let paid = try await stack.until("u") { $0.state == .active }
      #expect(paid.active)
      #expect(paid.state == .active)
      #expect(try await stack.events("u", awaiting: "trial_converted").contains("trial_converted"))
    }
  }

  @Test("billing failure → grace → billing retry (no access) → expired")
  func billingRetryToExpired() async throws {
    try await withStack { stack in
      let (purchase, _) = try await stack.buyAndSubmit(userId: "u")
      _ = try await stack.sim.failRenewals(purchase.originalTransactionId)
      _ = try await stack.sim.advance(byMs: 31 * Self.day)
      #expect(try await stack.until("u") { $0.state == .gracePeriod }.active)
      _ = try await stack.sim.advance(byMs: 7 * Self.day)
      let retry = try await stack.until("u") { $0.state == .billingRetry }
      #expect(retry.state == .billingRetry)
      #expect(!retry.active)
      _ = try await stack.sim.advance(byMs: 61 * Self.day)
      let expired = try await stack.until("u") { $0.state == .expired }
      #expect(expired.state == .expired)
      let events = try await stack.events("u", awaiting: "billing_issue")
      #expect(events.contains("grace_started"))
      #expect(events.contains("billing_issue"))
    }
  }

  @Test("upgrade takes effect at once; downgrade at the next renewal")
  func upgradeAndDowngrade() async throws {
    try await withStack { stack in
      let (basic, _) = try await stack.buyAndSubmit(Stack.basic, userId: "up")
      #expect(try await stack.answer("up", "basic").active)
      #expect(!(try await stack.answer("up", "premium").active))
      _ = try await stack.sim.changeProduct(basic.originalTransactionId, to: Stack.premium)
      let upgraded = try await stack.until("up", "premium") { $0.active }
      #expect(upgraded.active)
      #expect(upgraded.productID == Stack.premium)

      let (premium, _) = try await stack.buyAndSubmit(Stack.premium, userId: "down")
      _ = try await stack.sim.changeProduct(premium.originalTransactionId, to: Stack.basic)
      try await Task.sleep(for: .milliseconds(200))
      #expect(try await stack.answer("down", "premium").active, "a downgrade waits for the renewal")
      _ = try await stack.sim.advance(byMs: 31 * Self.day)
      let after = try await stack.until("down", "premium") { !$0.active }
      #expect(!after.active)
      let basicAfter = try await stack.until("down", "basic") { $0.active && $0.productID == Stack.basic }
      #expect(basicAfter.active)
      #expect(basicAfter.productID == Stack.basic)
    }
  }

  @Test("resubscribe after expiry, in the same chain")
  func resubscribe() async throws {
    try await withStack { stack in
      let (purchase, _) = try await stack.buyAndSubmit(userId: "u")
      _ = try await stack.sim.setAutoRenew(purchase.originalTransactionId, enabled: false)
      _ = try await stack.sim.advance(byMs: 31 * Self.day)
      try await stack.settle()
      #expect(try await stack.answer("u").state == .expired)
      _ = try await stack.sim.purchase(
        .init(
          productId: Stack.premium, bundleId: Stack.bundleId, environment: "Sandbox",
          originalTransactionId: purchase.originalTransactionId))
      let back = try await stack.until("u") { $0.active }
      #expect(back.active)
      #expect(back.storeSubscriptionID == purchase.originalTransactionId)
    }
  }

  @Test("dropped notifications: the scheduled check after the expiry finds the renewal anyway")
  func droppedNotificationRecoveredByPolling() async throws {
    try await withStack { stack in
      _ = try await stack.buyAndSubmit(userId: "u")
      let before = try await stack.answer("u").expiresAtMs
      try stack.sim.addFault(FaultRule(target: "apple.notifications", mode: .drop, count: nil))
      _ = try await stack.sim.advance(byMs: 31 * Self.day)
      let renewed = try await stack.until("u") { $0.expiresAtMs > before }
      #expect(renewed.expiresAtMs > before)
      #expect(renewed.active)
    }
  }

  @Test("out-of-order notifications converge on the store's state")
  func outOfOrder() async throws {
    try await withStack { stack in
      let (purchase, _) = try await stack.buyAndSubmit(userId: "u")
      try await stack.settle()
      // The first two of three auto-renew notifications arrive swapped.
      try stack.sim.addFault(FaultRule(target: "apple.notifications", mode: .reorder, count: 1))
      _ = try await stack.sim.setAutoRenew(purchase.originalTransactionId, enabled: false)
      _ = try await stack.sim.setAutoRenew(purchase.originalTransactionId, enabled: true)
      _ = try await stack.sim.setAutoRenew(purchase.originalTransactionId, enabled: false)
      try await Task.sleep(for: .milliseconds(200))
      try await stack.settle()
      let settled = try await stack.answer("u")
      #expect(!settled.willRenew, "the store's last word is auto-renew off")
      #expect(settled.active)
    }
  }

  @Test("the demo's users reach the states the README promises")
  func demoUsers() async throws {
    try await withStack { stack in
      let answers = Dictionary(
        uniqueKeysWithValues: try await DemoUsers.create(on: stack.local).map { ($0.user, $0.answer) })
      #expect(answers["demo-active"]?.state == .active)
      #expect(answers["demo-trial"]?.state == .trial)
      #expect(answers["demo-grace"]?.state == .gracePeriod)
      #expect(answers["demo-grace"]?.active == true)
      #expect(answers["demo-expired"]?.state == .expired)
      #expect(answers["demo-refunded"]?.state == .revoked)
      #expect(answers["demo-google-active"]?.state == .active)
      #expect(answers["demo-google-trial"]?.state == .trial)
      #expect(answers["demo-google-grace"]?.state == .gracePeriod)
      #expect(answers["demo-google-hold"]?.state == .onHold)
      #expect(answers["demo-google-paused"]?.state == .paused)
      #expect(answers["demo-google-upgraded"]?.productID == LocalStack.premium)
      #expect(answers["demo-google-refunded"]?.state == .revoked)
      #expect(answers["demo-amazon-active"]?.state == .active)
      #expect(answers["demo-amazon-trial"]?.state == .trial)
      #expect(answers["demo-amazon-grace"]?.state == .gracePeriod)
      #expect(answers["demo-amazon-cancelled"]?.active == false)
      let entitled = answers.filter { $0.value.active }.keys.sorted()
      #expect(
        entitled == [
          "demo-active", "demo-amazon-active", "demo-amazon-grace", "demo-amazon-trial", "demo-google-active",
          "demo-google-grace", "demo-google-trial", "demo-google-upgraded", "demo-grace", "demo-trial",
        ])
      // The upgrade is one owner's chain of two tokens, the second linked to the first.
      let upgraded = try await stack.worker.storage.subscriptions(userId: "demo-google-upgraded")
      #expect(upgraded.count == 2)
      #expect(upgraded.contains { $0.history.linkedPurchaseToken != nil })
    }
  }
}
