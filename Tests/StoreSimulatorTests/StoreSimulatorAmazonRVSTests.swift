import Foundation
import StoreSimulator
import Testing

@Suite("Store simulator, Amazon: the Receipt Verification Service")
struct StoreSimulatorAmazonRVSTests {
  @Test("a subscription's receipt with Amazon's fields, nulls included; ids percent-encoded in the path")
  func subscriptionReceipt() async throws {
    try await AmazonHarness.run { harness in
      let user = "kyplB1fdRX1m6/GNAVW0l6jv9Nl1V/GemSopKBHM84w+"
      let purchase = try await harness.sim.amazonPurchase(.init(sku: "com.example.premium.monthly", userId: user))
      #expect(purchase.userId == user)
      #expect(purchase.receiptId.contains(":") && purchase.receiptId.contains("=") && purchase.receiptId.contains("#"))
      let answer = try await harness.rvs(purchase.receiptId, user: user)
      #expect(answer.status == 200)
      #expect(answer.contentType == "application/json")
      #expect(answer.text.contains(#""cancelDate":null"#))
      #expect(answer.text.contains(#""promotions":null"#))
      let receipt = try #require(answer.json)
      #expect(receipt["receiptId"] as? String == purchase.receiptId)
      #expect(receipt["productType"] as? String == "SUBSCRIPTION")
      #expect(receipt["productId"] as? String == "com.example.premium.monthly")
      #expect(receipt["termSku"] as? String == "com.example.premium.monthly")
      #expect(receipt["parentProductId"] as? String == "com.example.premium")
      #expect(receipt["term"] as? String == "1 Month")
      #expect((receipt["purchaseDate"] as? NSNumber)?.int64Value == AmazonHarness.startMs)
      #expect((receipt["renewalDate"] as? NSNumber)?.int64Value == AmazonHarness.startMs + 30 * SimDuration.dayMs)
      #expect(receipt["autoRenewing"] as? Bool == true)
      #expect(receipt["testTransaction"] as? Bool == false)
      #expect(receipt["betaProduct"] as? Bool == false)
      #expect((receipt["quantity"] as? NSNumber)?.intValue == 1)
      #expect(receipt["freeTrialEndDate"] is NSNull)
      #expect(receipt["gracePeriodEndDate"] is NSNull)
      #expect(receipt["cancelReason"] is NSNull)
      #expect(receipt["countryCode"] as? String == "US")
    }
  }

  @Test("status codes: 496 wrong shared secret, 497 wrong user, 400 unknown or other environment, sandbox secrets")
  func statusCodes() async throws {
    try await AmazonHarness.run { harness in
      let purchase = try await harness.sim.amazonPurchase(.init(sku: "com.example.premium.monthly"))
      #expect(try await harness.rvs(purchase.receiptId, user: purchase.userId, secret: "wrong").status == 496)
      #expect(try await harness.rvs(purchase.receiptId, user: "someone-else=").status == 497)
      #expect(
        try await harness.rvs(
          "q1YqVrJSSyzNycwpUbJSSkxJyS9XSE0uyk9NSVVKT0stLbIsSS1OTjJTSc5ITUtNBAA:1:11", user: purchase.userId
        ).status == 400)
      #expect(try await harness.rvs(purchase.receiptId, user: purchase.userId, sandbox: true).status == 400)
      // A receipt id cut at `#`, as an unencoded path would send it, is not the receipt.
      let cut = String(purchase.receiptId.prefix { $0 != "#" })
      #expect(try await harness.rvs(cut, user: purchase.userId).status == 400)

      let test = try await harness.sim.amazonPurchase(.init(sku: "com.example.premium.monthly", sandbox: true))
      #expect(test.testTransaction)
      #expect(try await harness.rvs(test.receiptId, user: test.userId).status == 400)
      let sandbox = try await harness.rvs(test.receiptId, user: test.userId, secret: "anything", sandbox: true)
      #expect(sandbox.status == 200, "the RVS Cloud Sandbox takes any non-empty shared secret")
      #expect(sandbox.json?["testTransaction"] as? Bool == true)
      #expect(try await harness.rvs(test.receiptId, user: "other", sandbox: true).status == 497)
    }
  }

  @Test("the sandbox checks the shared secret when configured to")
  func sandboxSecretChecked() async throws {
    let configure: (inout StoreSimulator.Config) -> Void = { $0.amazon.sandboxChecksSharedSecret = true }
    try await AmazonHarness.run(configure: configure) { harness in
      let test = try await harness.sim.amazonPurchase(.init(sku: "com.example.lifetime", sandbox: true))
      #expect(try await harness.rvs(test.receiptId, user: test.userId, secret: "anything", sandbox: true).status == 496)
      #expect(try await harness.rvs(test.receiptId, user: test.userId, sandbox: true).status == 200)
    }
  }

  @Test("entitlement and consumable: purchase, cancel (cancelDate, cancelReason), notifications, 410 long after")
  func entitlementAndConsumable() async throws {
    try await AmazonHarness.run { harness in
      let sim = harness.sim
      let entitlement = try await sim.amazonPurchase(.init(sku: "com.example.lifetime"))
      let consumable = try await sim.amazonPurchase(.init(sku: "com.example.coins"))
      var receipt = try await harness.receipt(entitlement)
      #expect(receipt["productType"] as? String == "ENTITLED")
      #expect(receipt["productId"] as? String == "com.example.lifetime")
      #expect(receipt["renewalDate"] is NSNull)
      #expect(receipt["termSku"] is NSNull)
      #expect(try await harness.receipt(consumable)["productType"] as? String == "CONSUMABLE")

      try await sim.advance(byMs: SimDuration.dayMs)
      try await sim.amazonRefund(entitlement.receiptId)
      try await sim.amazonCancel(consumable.receiptId, cancelReason: 0)
      receipt = try await harness.receipt(entitlement)
      #expect((receipt["cancelDate"] as? NSNumber)?.int64Value == AmazonHarness.startMs + SimDuration.dayMs)
      #expect((receipt["cancelReason"] as? NSNumber)?.intValue == 1)
      #expect((try await harness.receipt(consumable)["cancelReason"] as? NSNumber)?.intValue == 0)
      await #expect(throws: StoreSimulatorError.self) { try await sim.amazonCancel(entitlement.receiptId) }
      try await harness.waitForNotifications(4)
      #expect(
        harness.notificationTypes == [
          "ENTITLEMENT_PURCHASED", "CONSUMABLE_PURCHASED", "ENTITLEMENT_CANCELLED", "CONSUMABLE_CANCELLED",
        ])

      try await sim.advance(byMs: 90 * SimDuration.dayMs)
      #expect(try await harness.rvs(entitlement.receiptId, user: entitlement.userId).status == 200)
      try await sim.advance(byMs: 1)
      #expect(try await harness.rvs(entitlement.receiptId, user: entitlement.userId).status == 410)
      #expect(try await harness.rvs(consumable.receiptId, user: consumable.userId).status == 410)
    }
  }

  @Test("the applied-fault log never holds the shared secret")
  func secretNotLogged() async throws {
    try await AmazonHarness.run { harness in
      let purchase = try await harness.sim.amazonPurchase(.init(sku: "com.example.lifetime"))
      try harness.sim.addFault(FaultRule(target: "amazon.rvs", mode: .error500))
      #expect(try await harness.rvs(purchase.receiptId, user: purchase.userId).status == 500)
      let applied = try #require(harness.sim.appliedFaults.last)
      #expect(applied.target == "amazon.rvs")
      #expect(applied.request.contains("/verifyReceiptId/developer/sha256:"))
      #expect(!applied.request.contains(AmazonHarness.secret))
    }
  }
}
