import AmazonAppstore
import Foundation
import Testing
import TollgateCore
import TollgateTesting

@Suite("RVS receipt model", .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
struct ModelReceiptTests {
  @Test(
    "every RVS body among the vectors decodes with a receipt id and a product type",
    arguments: AmazonVectors.receiptFiles)
  func everyVectorDecodes(_ file: String) throws {
    let receipt = try AmazonVectors.receipt(file)
    #expect(receipt.typedProductType != nil)
    #expect(receipt.productId != nil)
    #expect(receipt.unreadableFields.isEmpty)
  }

  @Test("all fields: Amazon's names, dates as ms, the typed product type, null quantity absent")
  func allFields() throws {
    let receipt = try AmazonVectors.receipt("aporat-rvs/rvs-subscription-all-fields-free-trial-autorenew.json")
    #expect(receipt.typedProductType == .subscription)
    #expect(receipt.productId == "com.amazon.iapsamplev2.expansion_set_3")
    #expect(receipt.term == "1 Week")
    #expect(receipt.termSku == "sub1-weekly_term")
    #expect(receipt.periodProductId == "sub1-weekly_term")
    #expect(receipt.purchaseDate == 1_558_424_877_035)
    #expect(receipt.renewalDate == 1_561_103_277_035)
    #expect(receipt.freeTrialEndDate == 1_561_104_377_023)
    #expect(receipt.gracePeriodEndDate == 1_561_104_377_013)
    #expect(receipt.autoRenewing == true)
    #expect(receipt.cancelDate == nil)
    #expect(receipt.testTransaction == true)
    #expect(receipt.betaProduct == false)
    #expect(receipt.quantity == 1)
    #expect(receipt.countryCode == "US")
  }

  @Test("go-iap's mixed-case keys (AutoRenewing, GracePeriodEndDate) read as Amazon's fields")
  func mixedCase() throws {
    let receipt = try AmazonVectors.receipt("go-iap/rvs-subscription-free-trial-mixedcase.json")
    #expect(receipt.autoRenewing == false)
    #expect(receipt.gracePeriodEndDate == 1_561_104_377_013)
    #expect(receipt.termSku == "sub1-weekly")
  }

  @Test("a cancelled subscription: null quantity, cancelReason 1 typed as the customer's")
  func nullQuantity() throws {
    let receipt = try AmazonVectors.receipt("aporat-rvs/rvs-subscription-cancelled-by-customer.json")
    #expect(receipt.quantity == nil)
    #expect(receipt.cancelDate == 1_400_784_371_000)
    #expect(receipt.cancelReason == 1)
    #expect(receipt.typedCancelReason == .customer)
    #expect(receipt.typedCancelReason?.expirationIntent == .customerCanceled)
    #expect(receipt.betaProduct == true)
  }

  @Test("promotions keep raw values beside typed ones: an introductory price, queued")
  func promotions() throws {
    let receipt = try AmazonVectors.receipt("aporat-rvs/rvs-subscription-intro-promotion-queued.json")
    let promotion = try #require(receipt.promotions?.first)
    #expect(promotion.promotionType == "Introductory Price - All Customers")
    #expect(promotion.typedPromotionType == .introductoryPrice)
    #expect(promotion.promotionStatus == "Queued")
    #expect(promotion.typedPromotionStatus == .queued)
  }

  @Test("a receipt id with #, = and : survives decoding")
  func receiptIdCharacters() throws {
    let receipt = try AmazonVectors.receipt("aporat-rvs/rvs-consumable-production-2017.json")
    #expect(receipt.receiptId == "M3qQCAiytxUzm3G05OworddJDiSi6ijXQGRFSK#AD=:1:11")
    #expect(receipt.typedProductType == .consumable)
  }

  @Test("numbers as strings, booleans as strings, unknown fields and an unknown product type decode")
  func tolerant() throws {
    let json = """
      {"receiptId":"r1","productType":"subscription","productId":"p","purchaseDate":"1700000000000",
       "renewalDate":1700000100000.0,"autoRenewing":"true","cancelReason":"4","quantity":null,
       "brandNewField":{"x":[1,2]},"promotions":[42,{"promotionType":"Free Trial","promotionStatus":"ACTIVE"}]}
      """
    let receipt = try JSONDecoder().decode(RVSReceipt.self, from: Data(json.utf8))
    #expect(receipt.typedProductType == .subscription)
    #expect(receipt.purchaseDate == 1_700_000_000_000)
    #expect(receipt.renewalDate == 1_700_000_100_000)
    #expect(receipt.autoRenewing == true)
    #expect(receipt.typedCancelReason == .tierChange)
    #expect(receipt.promotions?.count == 1)
    #expect(receipt.promotions?.first?.typedPromotionType == .freeTrial)
    #expect(receipt.promotions?.first?.typedPromotionStatus == .active)
    let other = try JSONDecoder().decode(RVSReceipt.self, from: Data(#"{"productType":"RENTAL"}"#.utf8))
    #expect(other.productType == "RENTAL")
    #expect(other.typedProductType == nil)
  }

  @Test("a field that cannot be read is absent and named, never a crash or a zero")
  func unreadable() throws {
    let json = #"{"receiptId":"r1","purchaseDate":"yesterday","renewalDate":[1],"autoRenewing":"maybe"}"#
    let receipt = try JSONDecoder().decode(RVSReceipt.self, from: Data(json.utf8))
    #expect(receipt.purchaseDate == nil)
    #expect(receipt.renewalDate == nil)
    #expect(receipt.autoRenewing == nil)
    #expect(receipt.unreadableFields == ["autoRenewing", "purchaseDate", "renewalDate"])
    #expect(throws: DecodingError.self) { try JSONDecoder().decode(RVSReceipt.self, from: Data("[1]".utf8)) }
  }
}
