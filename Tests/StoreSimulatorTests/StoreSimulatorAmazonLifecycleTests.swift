import Foundation
import StoreSimulator
import Testing

@Suite("Store simulator, Amazon: subscriptions on the virtual clock")
struct StoreSimulatorAmazonLifecycleTests {
  static let day = SimDuration.dayMs
  static let start = AmazonHarness.startMs

  static func ms(_ value: Any?) -> Int64? { (value as? NSNumber)?.int64Value }

  @Test("newReceiptPerTerm: free trial → paid (new receipt) → renewal (new receipt); each answers for its term")
  func trialAndRenewals() async throws {
    let configure: (inout StoreSimulator.Config) -> Void = { $0.amazon.newReceiptPerTerm = true }
    try await AmazonHarness.run(configure: configure) { harness in
      let sim = harness.sim
      let purchase = try await sim.amazonPurchase(.init(sku: "com.example.premium.monthly", freeTrial: true))
      #expect(purchase.renewalDateMs == Self.start + 7 * Self.day)
      var receipt = try await harness.receipt(purchase)
      #expect(Self.ms(receipt["freeTrialEndDate"]) == Self.start + 7 * Self.day)

      let advanced = try await sim.advance(byMs: 7 * Self.day)
      #expect(advanced.events.map(\.store) == ["amazon"])
      var snapshot = try sim.amazonReceipt(purchase.receiptId)
      let paid = try #require(snapshot.currentReceiptId)
      #expect(paid != purchase.receiptId)
      #expect(snapshot.receiptIds == [purchase.receiptId, paid])
      receipt = try await harness.receipt(purchase, receiptId: paid)
      #expect(Self.ms(receipt["purchaseDate"]) == Self.start + 7 * Self.day)
      #expect(Self.ms(receipt["renewalDate"]) == Self.start + 37 * Self.day)
      #expect(receipt["freeTrialEndDate"] is NSNull)
      #expect(receipt["parentProductId"] as? String == "com.example.premium")
      let trialReceipt = try await harness.receipt(purchase)
      #expect(Self.ms(trialReceipt["renewalDate"]) == Self.start + 7 * Self.day, "the trial's receipt keeps its term")
      #expect(trialReceipt["cancelDate"] is NSNull)

      try await sim.advance(byMs: 30 * Self.day)
      snapshot = try sim.amazonReceipt(paid)
      #expect(snapshot.receiptIds?.count == 3)
      try await harness.waitForNotifications(3)
      #expect(
        harness.notificationTypes == [
          "SUBSCRIPTION_PURCHASED", "SUBSCRIPTION_CONVERTED_FREE_TRIAL_TO_PAID", "SUBSCRIPTION_RENEWED",
        ])
      let receiptIds = harness.notifications.compactMap { $0["receiptId"] as? String }
      #expect(receiptIds == snapshot.receiptIds)
      let stamps = harness.notifications.compactMap { Self.ms($0["timestamp"]) }
      #expect(stamps == [Self.start, Self.start + 7 * Self.day, Self.start + 37 * Self.day])
    }
  }

  @Test("by default one receipt across trial and renewals: renewalDate moves on, freeTrialEndDate stays")
  func sameReceipt() async throws {
    try await AmazonHarness.run { harness in
      let purchase = try await harness.sim.amazonPurchase(.init(sku: "com.example.premium.monthly", freeTrial: true))
      try await harness.sim.advance(byMs: 37 * Self.day)
      let receipt = try await harness.receipt(purchase)
      #expect(Self.ms(receipt["renewalDate"]) == Self.start + 67 * Self.day)
      #expect(Self.ms(receipt["purchaseDate"]) == Self.start)
      #expect(Self.ms(receipt["freeTrialEndDate"]) == Self.start + 7 * Self.day)
      #expect(receipt["cancelDate"] is NSNull)
      #expect(try harness.sim.amazonReceipt(purchase.receiptId).receiptIds == [purchase.receiptId])
      try await harness.waitForNotifications(3)
      #expect(
        harness.notificationTypes == [
          "SUBSCRIPTION_PURCHASED", "SUBSCRIPTION_CONVERTED_FREE_TRIAL_TO_PAID", "SUBSCRIPTION_RENEWED",
        ])
      #expect(Set(harness.notifications.compactMap { $0["receiptId"] as? String }) == [purchase.receiptId])
    }
  }

  @Test("auto-renew off → expired at the term end (cancelDate = term end, cancelReason 1); on again before the end")
  func autoRenew() async throws {
    try await AmazonHarness.run { harness in
      let sim = harness.sim
      let purchase = try await sim.amazonPurchase(.init(sku: "com.example.premium.monthly"))
      try await sim.amazonSetAutoRenew(purchase.receiptId, enabled: false)
      #expect(try await harness.receipt(purchase)["autoRenewing"] as? Bool == false)
      try await sim.amazonSetAutoRenew(purchase.receiptId, enabled: true)
      try await sim.amazonSetAutoRenew(purchase.receiptId, enabled: false)
      try await sim.advance(byMs: 31 * Self.day)
      let receipt = try await harness.receipt(purchase)
      #expect(Self.ms(receipt["cancelDate"]) == Self.start + 30 * Self.day)
      #expect((receipt["cancelReason"] as? NSNumber)?.intValue == 1)
      #expect(try sim.amazonReceipt(purchase.receiptId).subscriptionState == .ended)
      try await harness.waitForNotifications(5)
      #expect(
        harness.notificationTypes == [
          "SUBSCRIPTION_PURCHASED", "SUBSCRIPTION_AUTO_RENEWAL_OFF", "SUBSCRIPTION_AUTO_RENEWAL_ON",
          "SUBSCRIPTION_AUTO_RENEWAL_OFF", "SUBSCRIPTION_EXPIRED",
        ])
      await #expect(throws: StoreSimulatorError.self) {
        try await sim.amazonSetAutoRenew(purchase.receiptId, enabled: true)
      }
    }
  }

  @Test("failed renewals: grace (gracePeriodEndDate), out of grace, cancelled with cancelReason 2; a 410 long after")
  func graceAndOutOfGrace() async throws {
    try await AmazonHarness.run { harness in
      let sim = harness.sim
      let purchase = try await sim.amazonPurchase(.init(sku: "com.example.premium.monthly"))
      try await sim.amazonFailRenewals(purchase.receiptId)
      try await sim.advance(byMs: 31 * Self.day)
      var snapshot = try sim.amazonReceipt(purchase.receiptId)
      #expect(snapshot.subscriptionState == .inGracePeriod)
      var receipt = try await harness.receipt(purchase)
      #expect(Self.ms(receipt["gracePeriodEndDate"]) == Self.start + 37 * Self.day)
      #expect(receipt["cancelDate"] is NSNull)
      #expect(receipt["autoRenewing"] as? Bool == true)

      try await sim.advance(byMs: 6 * Self.day)
      snapshot = try sim.amazonReceipt(purchase.receiptId)
      #expect(snapshot.subscriptionState == .ended)
      receipt = try await harness.receipt(purchase)
      #expect(Self.ms(receipt["cancelDate"]) == Self.start + 37 * Self.day)
      #expect((receipt["cancelReason"] as? NSNumber)?.intValue == 2)
      try await harness.waitForNotifications(4)
      #expect(
        harness.notificationTypes == [
          "SUBSCRIPTION_PURCHASED", "SUBSCRIPTION_IN_GRACE_PERIOD", "SUBSCRIPTION_OUT_OF_GRACE_PERIOD",
          "SUBSCRIPTION_EXPIRED",
        ])
      try await sim.advance(byMs: 91 * Self.day)
      #expect(try await harness.rvs(purchase.receiptId, user: purchase.userId).status == 410)
    }
  }

  @Test("payment recovered in grace: renewed from the term end, no days lost")
  func recoverInGrace() async throws {
    try await AmazonHarness.run { harness in
      let sim = harness.sim
      let purchase = try await sim.amazonPurchase(.init(sku: "com.example.premium.monthly"))
      try await sim.amazonFailRenewals(purchase.receiptId)
      try await sim.advance(byMs: 32 * Self.day)
      let snapshot = try await sim.amazonRecoverPayment(purchase.receiptId)
      #expect(snapshot.subscriptionState == .active)
      #expect(snapshot.currentReceiptId == purchase.receiptId)
      let receipt = try await harness.receipt(purchase)
      #expect(Self.ms(receipt["purchaseDate"]) == Self.start)
      #expect(Self.ms(receipt["renewalDate"]) == Self.start + 60 * Self.day, "renewed from the term end")
      #expect(receipt["gracePeriodEndDate"] is NSNull)
      try await harness.waitForNotifications(3)
      #expect(harness.notificationTypes.last == "SUBSCRIPTION_RENEWED")
    }
  }

  @Test("billing retry after grace when configured: OUT_OF_GRACE_PERIOD without a cancel date, then cancelled")
  func billingRetry() async throws {
    let configure: (inout StoreSimulator.Config) -> Void = {
      $0.amazon.billingRetryAfterGraceMs = 10 * SimDuration.dayMs
    }
    try await AmazonHarness.run(configure: configure) {
      harness in
      let sim = harness.sim
      let purchase = try await sim.amazonPurchase(.init(sku: "com.example.premium.monthly"))
      try await sim.amazonFailRenewals(purchase.receiptId)
      try await sim.advance(byMs: 38 * Self.day)
      #expect(try sim.amazonReceipt(purchase.receiptId).subscriptionState == .billingRetry)
      #expect(try await harness.receipt(purchase)["cancelDate"] is NSNull)
      try await sim.advance(byMs: 10 * Self.day)
      let receipt = try await harness.receipt(purchase)
      #expect(Self.ms(receipt["cancelDate"]) == Self.start + 47 * Self.day)
      #expect((receipt["cancelReason"] as? NSNumber)?.intValue == 2)
    }
  }

  @Test("a customer refund ends the subscription now: cancelDate inside the term, SUBSCRIPTION_CANCELLED")
  func refund() async throws {
    try await AmazonHarness.run { harness in
      let sim = harness.sim
      let purchase = try await sim.amazonPurchase(.init(sku: "com.example.premium.monthly"))
      try await sim.advance(byMs: 3 * Self.day)
      let snapshot = try await sim.amazonRefund(purchase.receiptId)
      #expect(snapshot.subscriptionState == .ended)
      let receipt = try await harness.receipt(purchase)
      #expect(Self.ms(receipt["cancelDate"]) == Self.start + 3 * Self.day)
      #expect((receipt["cancelReason"] as? NSNumber)?.intValue == 1)
      #expect(receipt["autoRenewing"] as? Bool == false)
      let events = try await sim.advance(byMs: 60 * Self.day).events
      #expect(events.isEmpty, "nothing renews after a refund")
      try await harness.waitForNotifications(2)
      #expect(harness.notificationTypes == ["SUBSCRIPTION_PURCHASED", "SUBSCRIPTION_CANCELLED"])
    }
  }

  @Test("tier change immediate: old receipt cancelled (cancelReason 4), new receipt now, relatedReceipts names the old")
  func tierChangeImmediate() async throws {
    try await AmazonHarness.run { harness in
      let sim = harness.sim
      let purchase = try await sim.amazonPurchase(.init(sku: "com.example.basic.monthly"))
      try await sim.advance(byMs: 10 * Self.day)
      let snapshot = try await sim.amazonChangeTier(
        purchase.receiptId, to: "com.example.premium.monthly", immediate: true)
      let new = snapshot.receiptId
      #expect(new != purchase.receiptId)
      #expect(snapshot.parentProductId == "com.example.premium")
      let old = try await harness.receipt(purchase)
      #expect((old["cancelReason"] as? NSNumber)?.intValue == 4)
      #expect(Self.ms(old["cancelDate"]) == Self.start + 10 * Self.day)
      let receipt = try await harness.receipt(purchase, receiptId: new)
      #expect(receipt["productId"] as? String == "com.example.premium.monthly")
      #expect(Self.ms(receipt["purchaseDate"]) == Self.start + 10 * Self.day)
      #expect(Self.ms(receipt["renewalDate"]) == Self.start + 40 * Self.day)
      try await harness.waitForNotifications(2)
      let rtn = try #require(harness.notifications.last)
      #expect(rtn["notificationType"] as? String == "SUBSCRIPTION_MODIFIED_IMMEDIATE")
      #expect(rtn["receiptId"] as? String == new)
      #expect((rtn["relatedReceipts"] as? [String: Any])?["cancelledReceiptId"] as? String == purchase.receiptId)
      // The chain renews on the new tier, on the new receipt.
      try await sim.advance(byMs: 30 * Self.day)
      #expect(try sim.amazonReceipt(new).receiptIds == [purchase.receiptId, new])
      #expect(Self.ms(try await harness.receipt(purchase, receiptId: new)["renewalDate"]) == Self.start + 70 * Self.day)
    }
  }

  @Test("tier change deferred: deferredSku on the current receipt, the next renewal is a new receipt on the new tier")
  func tierChangeDeferred() async throws {
    try await AmazonHarness.run { harness in
      let sim = harness.sim
      let purchase = try await sim.amazonPurchase(.init(sku: "com.example.premium.monthly"))
      try await sim.amazonChangeTier(purchase.receiptId, to: "com.example.basic", immediate: false)
      var receipt = try await harness.receipt(purchase)
      #expect(receipt["deferredSku"] as? String == "com.example.basic.monthly")
      #expect(Self.ms(receipt["deferredDate"]) == Self.start + 30 * Self.day)
      #expect(receipt["cancelDate"] is NSNull)
      try await sim.advance(byMs: 30 * Self.day)
      let current = try #require(try sim.amazonReceipt(purchase.receiptId).currentReceiptId)
      receipt = try await harness.receipt(purchase, receiptId: current)
      #expect(receipt["productId"] as? String == "com.example.basic.monthly")
      #expect(receipt["parentProductId"] as? String == "com.example.basic")
      try await harness.waitForNotifications(3)
      #expect(
        harness.notificationTypes == [
          "SUBSCRIPTION_PURCHASED", "SUBSCRIPTION_MODIFIED_DEFERRED", "SUBSCRIPTION_RENEWED",
        ])
      #expect((harness.notifications[1]["relatedReceipts"] as? [String: Any])?.isEmpty == true)
      await #expect(throws: StoreSimulatorError.self) {
        try await sim.amazonChangeTier(current, to: "com.example.basic.monthly", immediate: true)
      }
    }
  }
}
