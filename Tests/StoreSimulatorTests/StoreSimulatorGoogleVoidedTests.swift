import Foundation
import GooglePlay
import StoreSimulator
import Testing
import TollgateCore

/// Refunds, revocations and chargebacks through voided purchases, the 3-day acknowledgement
/// refund, test purchases and price changes, read with the production client and mapping.
@Suite("Store simulator, Google Play: voided purchases, acknowledgement, price changes")
struct StoreSimulatorGoogleVoidedTests {
  static let day = SimDuration.dayMs

  func voided(_ harness: GoogleHarness, startTimeMs: Int64 = GoogleHarness.startMs, maxResults: Int = 1_000)
    async throws -> [VoidedPurchase]
  {
    var all: [VoidedPurchase] = []
    var page: String?
    repeat {
      let body = try await harness.api.voidedPurchases(
        packageName: GoogleHarness.packageName, startTimeMs: startTimeMs, pageToken: page, maxResults: maxResults)
      let list = try JSONDecoder().decode(VoidedPurchasesListResponse.self, from: body)
      all += list.voidedPurchases ?? []
      page = list.tokenPagination?.nextPageToken
    } while page != nil
    return all
  }

  @Test("a refund with revocation: SUBSCRIPTION_REVOKED, a voidedPurchaseNotification and a voided listing")
  func refundRevokes() async throws {
    try await GoogleHarness.run { harness in
      let sim = harness.sim
      let token = try await sim.googlePurchase(
        GooglePurchaseRequest(productId: "com.example.monthly", acknowledged: true)
      )
      .purchaseToken
      try await sim.advance(byMs: 3 * Self.day)
      try await sim.googleRefund(token, voidedReason: 1, voidedSource: 0)
      let list = try await voided(harness)
      let entry = try #require(list.first)
      #expect(list.count == 1 && entry.purchaseToken == token)
      #expect(entry.voidedTimeMillis == GoogleHarness.startMs + 3 * Self.day)
      #expect(entry.purchaseTimeMillis == GoogleHarness.startMs)
      #expect(entry.typedVoidedReason == .remorse && entry.typedVoidedSource == .user)
      #expect(try await harness.subscriptionV2(token).typedSubscriptionState == .expired)
      let history = try await harness.mapping(token).history.applyingGooglePlay(voided: list)
      let evaluation = SubscriptionLifecycle.evaluate(history, at: sim.clockNowMs)
      #expect(!evaluation.isEntitled && evaluation.state == .revoked)
      #expect(try harness.subscriptionTypes() == [4, 12])
      let voidedPush = try #require(try harness.pushes().last?.notification.voidedPurchaseNotification)
      #expect(voidedPush.purchaseToken == token && voidedPush.orderId == entry.orderId)
      #expect(voidedPush.typedProductType == .subscription && voidedPush.typedRefundType == .fullRefund)
    }
  }

  @Test("a refund without revocation (--keep) is neither listed nor notified, as Google documents; access stays")
  func refundWithoutRevokeIsNotVoided() async throws {
    try await GoogleHarness.run { harness in
      let sim = harness.sim
      let token = try await sim.googlePurchase(
        GooglePurchaseRequest(productId: "com.example.monthly", acknowledged: true)
      )
      .purchaseToken
      try await sim.advance(byMs: 3 * Self.day)
      let pushesBefore = try harness.pushes().count
      let snapshot = try await sim.googleRefund(token, voidedReason: 1, voidedSource: 1, revoke: false)
      #expect(!snapshot.voided)
      #expect(try await voided(harness).isEmpty)
      #expect(try harness.pushes().count == pushesBefore)
      #expect(try harness.pushes().allSatisfy { $0.notification.voidedPurchaseNotification == nil })
      let resource = try await harness.subscriptionV2(token)
      #expect(resource.typedSubscriptionState == .active)
      let history = try await harness.mapping(token).history.applyingGooglePlay(voided: try await voided(harness))
      #expect(SubscriptionLifecycle.evaluate(history, at: sim.clockNowMs).isEntitled)
    }
  }

  @Test("the API's subscriptionsv2.revoke and a chargeback show as developer and chargeback voids, paginated")
  func revokeAndChargebackPaginated() async throws {
    try await GoogleHarness.run { harness in
      let sim = harness.sim
      let first = try await sim.googlePurchase(
        GooglePurchaseRequest(productId: "com.example.monthly", acknowledged: true)
      )
      .purchaseToken
      let second = try await sim.googlePurchase(GooglePurchaseRequest(productId: "com.example.premium.monthly"))
        .purchaseToken
      let lifetime = try await sim.googlePurchase(GooglePurchaseRequest(productId: "com.example.lifetime"))
        .purchaseToken
      try await sim.advance(byMs: Self.day)
      try await harness.api.revokeSubscriptionV2(packageName: GoogleHarness.packageName, purchaseToken: first)
      try await sim.advance(byMs: Self.day)
      try await sim.googleRefund(second, voidedReason: 7, voidedSource: 2)
      try await sim.googleRefund(lifetime)
      let list = try await voided(harness, maxResults: 1)
      #expect(list.map(\.purchaseToken) == [first, second, lifetime])
      #expect(list[0].typedVoidedSource == .developer)
      #expect(list[1].typedVoidedReason == .chargeback)
      #expect(try await harness.subscriptionV2(first).canceledStateContext?.developerInitiatedCancellation != nil)
      let product = try JSONDecoder().decode(
        ProductPurchase.self,
        from: try await harness.api.product(
          packageName: GoogleHarness.packageName, productId: "com.example.lifetime", purchaseToken: lifetime))
      #expect(product.typedPurchaseState == .canceled)
      // A window that starts after the voids lists nothing.
      try await sim.advance(byMs: 1)
      let later = try await voided(harness, startTimeMs: sim.clockNowMs)
      #expect(later.isEmpty)
    }
  }

  @Test("unacknowledged for 3 days: Google refunds and revokes; an acknowledged purchase stays")
  func acknowledgementDeadline() async throws {
    try await GoogleHarness.run { harness in
      let sim = harness.sim
      let forgotten = try await sim.googlePurchase(GooglePurchaseRequest(productId: "com.example.monthly"))
        .purchaseToken
      let kept = try await sim.googlePurchase(GooglePurchaseRequest(productId: "com.example.monthly")).purchaseToken
      let lifetime = try await sim.googlePurchase(GooglePurchaseRequest(productId: "com.example.lifetime"))
        .purchaseToken
      try await harness.api.acknowledgeSubscription(
        packageName: GoogleHarness.packageName, subscriptionId: "com.example.monthly", purchaseToken: kept)
      #expect(try await harness.subscriptionV2(kept).typedAcknowledgementState == .acknowledged)
      #expect(try await harness.mapping(forgotten).history.renewalInfo?.isAcknowledged == false)
      try await sim.advance(byMs: 3 * Self.day - 1)
      #expect(try await harness.subscriptionV2(forgotten).typedSubscriptionState == .active)
      try await sim.advance(byMs: 1)
      #expect(try await harness.subscriptionV2(forgotten).typedSubscriptionState == .expired)
      #expect(try await harness.subscriptionV2(kept).typedSubscriptionState == .active)
      let list = try await voided(harness)
      #expect(Set(list.map(\.purchaseToken)) == [forgotten, lifetime])
      #expect(list.allSatisfy { $0.typedVoidedSource == .google })
      #expect(try harness.subscriptionTypes(for: forgotten) == [4, 12])
    }
  }

  @Test("a test purchase carries testPurchase and maps to the sandbox")
  func testPurchase() async throws {
    try await GoogleHarness.run { harness in
      let token = try await harness.sim.googlePurchase(
        GooglePurchaseRequest(productId: "com.example.monthly", testPurchase: true)
      ).purchaseToken
      let resource = try await harness.subscriptionV2(token)
      #expect(resource.isTestPurchase)
      #expect(try await harness.mapping(token).history.environment == .sandbox)
      let real = try await harness.sim.googlePurchase(GooglePurchaseRequest(productId: "com.example.monthly"))
      #expect(try await !harness.subscriptionV2(real.purchaseToken).isTestPurchase)
    }
  }

  @Test("a price increase waits for consent (PRICE_CHANGE_UPDATED); confirmed, it applies at the renewal")
  func priceStepUp() async throws {
    try await GoogleHarness.run { harness in
      let sim = harness.sim
      let token = try await sim.googlePurchase(
        GooglePurchaseRequest(productId: "com.example.monthly", acknowledged: true)
      ).purchaseToken
      try await sim.googleChangePrice(token, newPriceMicros: 12_990_000)
      let pending = try await harness.subscriptionV2(token)
      let details = try #require(pending.lineItems?.first?.autoRenewingPlan?.priceChangeDetails)
      #expect(details.priceChangeState == "OUTSTANDING" && details.newPrice?.amountMicros == 12_990_000)
      #expect(try await harness.evaluate(token).priceIncreaseConsentPending)
      try await sim.googleConfirmPriceChange(token)
      #expect(try await !harness.evaluate(token).priceIncreaseConsentPending)
      try await sim.advance(byMs: 30 * Self.day + 1)
      let renewed = try await harness.subscriptionV2(token)
      #expect(renewed.lineItems?.first?.autoRenewingPlan?.recurringPrice?.amountMicros == 12_990_000)
      #expect(try harness.subscriptionTypes() == [4, 19, 8, 22, 2])
    }
  }

  @Test("a price increase without consent cancels the subscription at the renewal")
  func priceStepUpRefused() async throws {
    try await GoogleHarness.run { harness in
      let sim = harness.sim
      let token = try await sim.googlePurchase(
        GooglePurchaseRequest(productId: "com.example.monthly", acknowledged: true)
      ).purchaseToken
      try await sim.googleChangePrice(token, newPriceMicros: 12_990_000)
      try await sim.advance(byMs: 30 * Self.day + 1)
      #expect(try await harness.subscriptionV2(token).typedSubscriptionState == .expired)
      #expect(try harness.subscriptionTypes() == [4, 19, 3, 13])
    }
  }
}
