import Foundation
import GooglePlay
import Testing
import TollgateCore
import TollgateTesting

/// One-time products mapped into Core: purchased grants for life until voided; pending,
/// canceled and rentals grant nothing.
@Suite("one-time products → Core", .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
struct MappingProductTests {
  let farFuture = ms("2100-01-01T00:00:00Z")

  func v1(_ name: String, token: String = "one-time-token") throws -> GooglePlayMapping {
    let resource: ProductPurchase = try GoogleVectors.decode("aporat-voided-products/\(name).json")
    return GooglePlayMapping(
      product: resource, purchaseToken: token, productId: "app.example.coins.100", packageName: "app.example",
      asOfMs: ms("2025-09-04T00:00:00Z"))
  }

  @Test func aPurchasedProductGrantsForLife() throws {
    let m = try v1("products-get-v1-purchased-acknowledged")
    let period = try #require(m.history.transactions.first)
    #expect(m.history.transactions.count == 1 && m.notes.isEmpty && m.history.environment == .production)
    #expect(period.transactionId == "GPA.7777-6666-5555-44444" && period.productId == "app.example.coins.100")
    #expect(period.purchaseDateMs == 1_756_911_600_000 && period.expiresDateMs == Int64.max)
    #expect(m.obfuscatedExternalAccountId == "ACCOUNT-1")
    let later = SubscriptionLifecycle.evaluate(m.history, at: farFuture)
    #expect(later.state == .active && later.isEntitled && !later.willRenew && !later.acknowledgementPending)
    #expect(!SubscriptionLifecycle.evaluate(m.history, at: 1_756_911_599_999).isEntitled)
  }

  @Test func aPendingTestProductGrantsNothing() throws {
    let m = try v1("products-get-v1-pending-test")
    #expect(m.history.transactions.isEmpty && m.history.environment == .sandbox)
    #expect(m.notes == [.productNotPurchased(purchaseState: "2")])
    let now = SubscriptionLifecycle.evaluate(m.history, at: ms("2025-09-05T00:00:00Z"))
    #expect(!now.isEntitled && now.acknowledgementPending)
  }

  @Test func aVoidedProductEndsAtItsVoidedTime() throws {
    let page: VoidedPurchasesListResponse = try GoogleVectors.decode(
      "aporat-voided-products/voidedpurchases-list-page.json")
    let body = #"{"purchaseState": 0, "purchaseTimeMillis": "1756825200000", "orderId": "GPA.1000-2000-3000-40000"}"#
    let resource = try JSONDecoder().decode(ProductPurchase.self, from: Data(body.utf8))
    let m = GooglePlayMapping(
      product: resource, purchaseToken: "voided-token-1", productId: "sku", packageName: "p", asOfMs: 0)
    #expect(SubscriptionLifecycle.evaluate(m.history, at: farFuture).isEntitled)
    let voided = m.history.applyingGooglePlay(voided: page.voidedPurchases ?? [])
    let period = try #require(voided.transactions.first)
    #expect(period.revocationDateMs == 1_756_911_600_000 && period.revocationReason == .revoked)
    let after = SubscriptionLifecycle.evaluate(voided, at: farFuture)
    #expect(after.state == .revoked && after.reason == .revoked && !after.isEntitled)
    // Another token's voided purchases change nothing.
    let other = m.history.applyingGooglePlay(voided: [page.voidedPurchases?[1]].compactMap { $0 })
    #expect(other == m.history)
  }

  @Test func aVoidedOlderOrderLeavesTheCurrentOne() throws {
    let body = """
      {"startTime": "2026-08-01T00:00:00Z", "subscriptionState": "SUBSCRIPTION_STATE_ACTIVE",
       "lineItems": [{"productId": "pro", "expiryTime": "2026-10-01T00:00:00Z", "latestSuccessfulOrderId": "GPA.9..2",
                      "autoRenewingPlan": {"autoRenewEnabled": true}}]}
      """
    let resource = try JSONDecoder().decode(SubscriptionPurchaseV2.self, from: Data(body.utf8))
    let m = GooglePlayMapping(subscription: resource, purchaseToken: "tok", packageName: "p", asOfMs: 0)
    var older = VoidedPurchase()
    older.purchaseToken = "tok"
    older.orderId = "GPA.9..1"
    older.voidedTimeMillis = ms("2026-09-01T00:00:00Z")
    older.voidedReason = 1
    #expect(m.history.applyingGooglePlay(voided: [older]) == m.history)
    older.orderId = "GPA.9..2"
    let refunded = m.history.applyingGooglePlay(voided: [older])
    #expect(refunded.transactions.first?.revocationReason == .refunded)
    #expect(SubscriptionLifecycle.evaluate(refunded, at: ms("2026-09-02T00:00:00Z")).state == .revoked)
  }

  @Test func productsV2PurchasedItemsAndARental() throws {
    let resource: ProductPurchaseV2 = try GoogleVectors.decode(
      "aporat-voided-products/productsv2-get-purchased-two-items.json")
    let m = GooglePlayMapping(productV2: resource, purchaseToken: "t2", packageName: "app.example", asOfMs: 0)
    #expect(m.history.transactions.map(\.transactionId) == ["GPA.7777-6666-5555-44444|app.example.coins.100"])
    #expect(m.history.transactions.first?.expiresDateMs == Int64.max)
    #expect(m.history.transactions.first?.purchaseDateMs == ms("2025-09-03T15:00:00Z"))
    #expect(m.notes == [.rentalWithoutExpiry(productId: "app.example.movie")] && m.failsClosed)
    let later = SubscriptionLifecycle.evaluate(m.history, at: farFuture)
    #expect(later.isEntitled && later.productId == "app.example.coins.100")
  }

  @Test func productsV2PendingPreorderGrantsNothing() throws {
    let resource: ProductPurchaseV2 = try GoogleVectors.decode(
      "aporat-voided-products/productsv2-get-pending-test-preorder.json")
    let m = GooglePlayMapping(productV2: resource, purchaseToken: "t3", packageName: "app.example", asOfMs: 0)
    #expect(m.history.transactions.isEmpty && m.history.environment == .sandbox)
    #expect(m.notes == [.productNotPurchased(purchaseState: "PENDING")])
    #expect(!SubscriptionLifecycle.evaluate(m.history, at: farFuture).isEntitled)
  }
}
