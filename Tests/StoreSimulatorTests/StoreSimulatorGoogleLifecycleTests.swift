import Foundation
import GooglePlay
import StoreSimulator
import Testing
import TollgateCore

/// Google Play subscriptions through their lives on the virtual clock, read back with the
/// production API client and mapped to Core with the production mapping.
@Suite("Store simulator, Google Play: subscription lifecycle")
struct StoreSimulatorGoogleLifecycleTests {
  static let day = SimDuration.dayMs

  @Test("a free trial converts to a paid renewal: SUBSCRIPTION_RENEWED, base price, a ..0 order")
  func trialToPaid() async throws {
    try await GoogleHarness.run { harness in
      let sim = harness.sim
      let token = try await sim.googlePurchase(
        GooglePurchaseRequest(productId: "com.example.monthly", offer: "trial", acknowledged: true)
      )
      .purchaseToken
      #expect(try await harness.evaluate(token).state == .trial)
      try await sim.advance(byMs: 7 * Self.day + 1)
      let renewed = try await harness.subscriptionV2(token)
      let item = try #require(renewed.lineItems?.first)
      #expect(item.offerPhase?.basePrice != nil)
      #expect(item.expiryTime == GoogleHarness.startMs + 37 * Self.day)
      #expect(item.latestSuccessfulOrderId?.hasSuffix("..0") == true)
      let evaluation = try await harness.evaluate(token)
      #expect(evaluation.state == .active && evaluation.isEntitled && evaluation.willRenew)
      #expect(try harness.subscriptionTypes() == [4, 2])
    }
  }

  @Test("declined renewal: grace period (entitled), account hold (not), then recovery with a new period")
  func graceHoldRecover() async throws {
    try await GoogleHarness.run { harness in
      let sim = harness.sim
      let token = try await sim.googlePurchase(
        GooglePurchaseRequest(productId: "com.example.monthly", acknowledged: true)
      ).purchaseToken
      try await sim.googleFailRenewals(token)
      try await sim.advance(byMs: 30 * Self.day + 1)
      let grace = try await harness.evaluate(token)
      #expect(grace.state == .gracePeriod && grace.isEntitled)
      #expect(grace.gracePeriodExpiresAtMs == GoogleHarness.startMs + 37 * Self.day)
      try await sim.advance(byMs: 7 * Self.day)
      let hold = try await harness.evaluate(token)
      #expect(hold.state == .onHold && !hold.isEntitled)
      try await sim.advance(byMs: 3 * Self.day)
      try await sim.googleRecoverPayment(token)
      let recovered = try await harness.evaluate(token)
      #expect(recovered.state == .active && recovered.isEntitled)
      #expect(recovered.expiresAtMs == sim.clockNowMs + 30 * Self.day)
      #expect(try harness.subscriptionTypes() == [4, 6, 5, 1])
    }
  }

  @Test("recovering inside the grace period renews from the original date (SUBSCRIPTION_RENEWED)")
  func graceRecovery() async throws {
    try await GoogleHarness.run { harness in
      let sim = harness.sim
      let token = try await sim.googlePurchase(
        GooglePurchaseRequest(productId: "com.example.monthly", acknowledged: true)
      ).purchaseToken
      try await sim.googleFailRenewals(token)
      try await sim.advance(byMs: 32 * Self.day)
      try await sim.googleRecoverPayment(token)
      let evaluation = try await harness.evaluate(token)
      #expect(evaluation.state == .active && evaluation.expiresAtMs == GoogleHarness.startMs + 60 * Self.day)
      #expect(try harness.subscriptionTypes() == [4, 6, 2])
    }
  }

  @Test("account hold that is never recovered ends in SUBSCRIPTION_EXPIRED, system-initiated")
  func holdExpires() async throws {
    try await GoogleHarness.run { harness in
      let sim = harness.sim
      let token = try await sim.googlePurchase(
        GooglePurchaseRequest(productId: "com.example.monthly", acknowledged: true)
      ).purchaseToken
      try await sim.googleFailRenewals(token)
      try await sim.advance(byMs: 30 * Self.day + 7 * Self.day + 30 * Self.day + 1)
      let resource = try await harness.subscriptionV2(token)
      #expect(resource.typedSubscriptionState == .expired)
      #expect(resource.canceledStateContext?.systemInitiatedCancellation != nil)
      let evaluation = try await harness.evaluate(token)
      #expect(!evaluation.isEntitled && evaluation.state == .expired)
      #expect(try harness.subscriptionTypes() == [4, 6, 5, 13])
    }
  }

  @Test("canceled in the grace period, access ends with the grace period: SUBSCRIPTION_EXPIRED")
  func cancelInGrace() async throws {
    try await GoogleHarness.run { harness in
      let sim = harness.sim
      let token = try await sim.googlePurchase(
        GooglePurchaseRequest(productId: "com.example.monthly", acknowledged: true)
      ).purchaseToken
      try await sim.googleFailRenewals(token)
      try await sim.advance(byMs: 31 * Self.day)
      try await sim.googleCancel(token)
      #expect(try await harness.evaluate(token).isEntitled)
      try await sim.advance(byMs: 6 * Self.day)
      #expect(try await harness.subscriptionV2(token).typedSubscriptionState == .expired)
      #expect(try await !harness.evaluate(token).isEntitled)
      #expect(try harness.subscriptionTypes() == [4, 6, 3, 13])
    }
  }

  @Test("pause from the next renewal, PAUSED with autoResumeTime, then resumed automatically")
  func pauseAndAutoResume() async throws {
    try await GoogleHarness.run { harness in
      let sim = harness.sim
      let token = try await sim.googlePurchase(
        GooglePurchaseRequest(productId: "com.example.monthly", acknowledged: true)
      ).purchaseToken
      try await sim.googlePause(token, durationMs: 30 * Self.day)
      #expect(try await harness.evaluate(token).isEntitled)
      try await sim.advance(byMs: 30 * Self.day + 1)
      let resource = try await harness.subscriptionV2(token)
      #expect(resource.typedSubscriptionState == .paused)
      #expect(resource.pausedStateContext?.autoResumeTime == GoogleHarness.startMs + 60 * Self.day)
      let paused = try await harness.evaluate(token)
      #expect(paused.state == .paused && !paused.isEntitled)
      #expect(paused.pausedUntilMs == GoogleHarness.startMs + 60 * Self.day)
      try await sim.advance(byMs: 30 * Self.day)
      let resumed = try await harness.evaluate(token)
      #expect(resumed.state == .active && resumed.isEntitled)
      #expect(resumed.expiresAtMs == GoogleHarness.startMs + 90 * Self.day)
      #expect(try harness.subscriptionTypes() == [4, 11, 10, 2])
    }
  }

  @Test("cancel keeps access until the expiry, restart undoes it; canceled again it expires")
  func cancelAndRestart() async throws {
    try await GoogleHarness.run { harness in
      let sim = harness.sim
      let token = try await sim.googlePurchase(
        GooglePurchaseRequest(productId: "com.example.monthly", acknowledged: true)
      ).purchaseToken
      try await sim.advance(byMs: 5 * Self.day)
      try await sim.googleCancel(token)
      let canceled = try await harness.subscriptionV2(token)
      #expect(canceled.typedSubscriptionState == .canceled)
      #expect(canceled.lineItems?.first?.autoRenewingPlan?.autoRenewEnabled == nil)
      #expect(
        canceled.canceledStateContext?.userInitiatedCancellation?.cancelTime == GoogleHarness.startMs + 5 * Self.day)
      let evaluation = try await harness.evaluate(token)
      #expect(evaluation.isEntitled && !evaluation.willRenew)
      try await sim.googleRestart(token)
      #expect(try await harness.evaluate(token).willRenew)
      try await sim.googleCancel(token)
      try await sim.advance(byMs: 25 * Self.day + 1)
      #expect(try await harness.subscriptionV2(token).typedSubscriptionState == .expired)
      #expect(try await !harness.evaluate(token).isEntitled)
      #expect(try harness.subscriptionTypes() == [4, 3, 7, 3, 13])
    }
  }

  @Test("an upgrade is a new token linked to the old one, which is canceled by replacement")
  func upgrade() async throws {
    try await GoogleHarness.run { harness in
      let sim = harness.sim
      let old = try await sim.googlePurchase(
        GooglePurchaseRequest(
          productId: "com.example.monthly", obfuscatedExternalAccountId: "user-1", acknowledged: true)
      ).purchaseToken
      try await sim.advance(byMs: 10 * Self.day)
      let snapshot = try await sim.googleChangeProduct(old, to: "com.example.premium.monthly")
      let new = try #require(snapshot.replacedByToken)
      let newResource = try await harness.subscriptionV2(new)
      #expect(newResource.linkedPurchaseToken == old)
      #expect(newResource.lineItems?.first?.productId == "com.example.premium.monthly")
      #expect(newResource.externalAccountIdentifiers?.obfuscatedExternalAccountId == "user-1")
      #expect(newResource.typedAcknowledgementState == .pending)
      let oldResource = try await harness.subscriptionV2(old)
      #expect(oldResource.canceledStateContext?.replacementCancellation != nil)
      let oldMapping = try await harness.mapping(old)
      #expect(oldMapping.history.renewalInfo?.expirationIntent == .replaced)
      #expect(try await harness.evaluate(new).isEntitled)
      #expect(try await !harness.evaluate(old, atMs: sim.clockNowMs + 1).isEntitled)
      #expect(try harness.subscriptionTypes(for: old) == [4, 3])
      #expect(try harness.subscriptionTypes(for: new) == [4])
    }
  }

  @Test("a downgrade is deferred: deferredItemReplacement until the renewal, then a linked new token")
  func deferredDowngrade() async throws {
    try await GoogleHarness.run { harness in
      let sim = harness.sim
      let old = try await sim.googlePurchase(
        GooglePurchaseRequest(productId: "com.example.monthly", acknowledged: true)
      ).purchaseToken
      let scheduled = try await sim.googleChangeProduct(old, to: "com.example.basic.monthly")
      #expect(scheduled.replacedByToken == nil)
      let resource = try await harness.subscriptionV2(old)
      #expect(resource.lineItems?.first?.deferredItemReplacement?.productId == "com.example.basic.monthly")
      #expect(try await harness.mapping(old).history.renewalInfo?.autoRenewProductId == "com.example.basic.monthly")
      try await sim.advance(byMs: 30 * Self.day + 1)
      let new = try #require(try sim.googleSubscription(old).replacedByToken)
      let newResource = try await harness.subscriptionV2(new)
      #expect(newResource.linkedPurchaseToken == old && newResource.startTime == GoogleHarness.startMs + 30 * Self.day)
      #expect(newResource.lineItems?.first?.productId == "com.example.basic.monthly")
      #expect(try await harness.evaluate(new).isEntitled)
      #expect(try await !harness.evaluate(old).isEntitled)
    }
  }

  @Test("an intro offer bills its price for its period, then the base price")
  func introOffer() async throws {
    try await GoogleHarness.run { harness in
      let sim = harness.sim
      let token = try await sim.googlePurchase(
        GooglePurchaseRequest(productId: "com.example.monthly", offer: "intro", acknowledged: true)
      )
      .purchaseToken
      #expect(try await harness.evaluate(token).state == .introOffer)
      #expect(try await harness.subscriptionV2(token).lineItems?.first?.offerDetails?.offerId == "intro-price")
      try await sim.advance(byMs: 30 * Self.day + 1)
      #expect(try await harness.evaluate(token).state == .active)
    }
  }
}
