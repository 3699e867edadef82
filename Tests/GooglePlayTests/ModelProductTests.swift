import Foundation
import GooglePlay
import Testing
import TollgateTesting

/// vectors/google/aporat-voided-products: one-time products (v1 and v2) and voided purchases.
@Suite(
  "one-time product and voided purchase models", .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage))
)
struct ModelProductTests {
  @Test func productsGetPurchasedAcknowledged() throws {
    let p: ProductPurchase = try GoogleVectors.decode(
      "aporat-voided-products/products-get-v1-purchased-acknowledged.json")
    #expect(p.typedPurchaseState == .purchased && p.isAcknowledged == true && p.typedPurchaseType == nil)
    #expect(p.purchaseTimeMillis == 1_756_911_600_000 && p.orderId == "GPA.7777-6666-5555-44444")
    #expect(p.purchaseToken == "one-time-token" && p.productId == "app.example.coins.100" && p.quantity == 2)
    #expect(p.obfuscatedExternalAccountId == "ACCOUNT-1" && p.regionCode == "US" && p.consumptionState == 0)
  }

  @Test func productsGetPendingTest() throws {
    let p: ProductPurchase = try GoogleVectors.decode("aporat-voided-products/products-get-v1-pending-test.json")
    #expect(p.typedPurchaseState == .pending && p.typedPurchaseType == .test && p.isAcknowledged == false)
    #expect(p.consumptionState == 1 && p.purchaseToken == nil)
  }

  @Test func productsV2PurchasedTwoItems() throws {
    let p: ProductPurchaseV2 = try GoogleVectors.decode(
      "aporat-voided-products/productsv2-get-purchased-two-items.json")
    #expect(p.purchaseStateContext?.typedPurchaseState == .purchased && p.typedAcknowledgementState == .acknowledged)
    #expect(!p.isTestPurchase && p.purchaseCompletionTime == ms("2025-09-03T15:00:00Z"))
    let items = try #require(p.productLineItem)
    #expect(items.map(\.productId) == ["app.example.coins.100", "app.example.movie"])
    #expect(items[0].productOfferDetails?.quantity == 2 && items[0].productOfferDetails?.offerTags == ["launch"])
    #expect(items[0].productOfferDetails?.rentOfferDetails == nil)
    #expect(items[1].productOfferDetails?.rentOfferDetails != nil)
    #expect(items[1].productOfferDetails?.consumptionState == "CONSUMPTION_STATE_CONSUMED")
  }

  @Test func productsV2PendingTestPreorder() throws {
    let p: ProductPurchaseV2 = try GoogleVectors.decode(
      "aporat-voided-products/productsv2-get-pending-test-preorder.json")
    #expect(p.purchaseStateContext?.typedPurchaseState == .pending && p.isTestPurchase)
    #expect(p.testPurchaseContext?.fopType == "TEST" && p.typedAcknowledgementState == .pending)
    let offer = try #require(p.productLineItem?.first?.productOfferDetails)
    #expect(offer.consumptionState == "SOMETHING_NEW" && offer.purchaseOptionId == "preorder")
    #expect(offer.preorderOfferDetails?.preorderReleaseTime == ms("2026-12-01T00:00:00Z"))
  }

  @Test func voidedPurchasesPage() throws {
    let page: VoidedPurchasesListResponse = try GoogleVectors.decode(
      "aporat-voided-products/voidedpurchases-list-page.json")
    #expect(page.tokenPagination?.nextPageToken == "next-page" && page.pageInfo?.totalResults == 2)
    let voided = try #require(page.voidedPurchases)
    #expect(voided.count == 2)
    #expect(voided[0].purchaseToken == "voided-token-1" && voided[0].voidedTimeMillis == 1_756_911_600_000)
    #expect(voided[0].typedVoidedSource == .developer && voided[0].typedVoidedReason == .chargeback)
    #expect(voided[0].purchaseTimeMillis == 1_756_825_200_000 && voided[0].kind == "androidpublisher#voidedPurchase")
    #expect(voided[1].typedVoidedSource == .user && voided[1].voidedReason == 99 && voided[1].typedVoidedReason == nil)
    #expect(voided[1].voidedQuantity == 3)
  }
}
