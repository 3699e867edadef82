import AmazonAppstore
import Foundation
import Testing
import TollgateCore
import TollgateTesting

/// `inspect amazon-receipt` on every RVS body among the vectors: the verdict, the summary at a
/// moment, and why a body is not a receipt Tollgate understands.
@Suite(
  "inspect amazon-receipt: summary and verdict",
  .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
struct InspectReceiptTests {
  static func inspect(_ file: String, at: Int64) throws -> AmazonInspection.Report {
    try AmazonInspection.inspectReceipt(json: Array(try AmazonVectors.data(file)), atMs: at)
  }

  static func inspect(json: String, at: Int64 = 1_600_000_000_000) throws -> AmazonInspection.Report {
    try AmazonInspection.inspectReceipt(json: Array(json.utf8), atMs: at)
  }

  static func summary(_ report: AmazonInspection.Report) throws -> [String: Any] { try #require(report.summary) }

  @Test(
    "every receipt vector is valid and its summary has exactly the documented fields",
    arguments: [
      "aporat-rvs/rvs-consumable-production-2017.json", "aporat-rvs/rvs-consumable-sandbox.json",
      "aporat-rvs/rvs-subscription-all-fields-free-trial-autorenew.json",
      "aporat-rvs/rvs-subscription-cancelled-by-customer.json",
      "aporat-rvs/rvs-subscription-intro-promotion-queued.json",
      "docs/rvs-sandbox-subscription-free-trial.json", "go-iap/rvs-entitled.json",
      "go-iap/rvs-subscription-free-trial-mixedcase.json",
    ])
  func receipts(_ file: String) throws {
    let report = try Self.inspect(file, at: 1_600_000_000_000)
    #expect(report.isValid, "\(report.problem?.message ?? "")")
    let summary = try Self.summary(report)
    #expect(
      Set(summary.keys) == [
        "productType", "productId", "receiptId", "entitled", "expiresAtMs", "cancelDateMs", "cancelReason", "autoRenew",
        "testTransaction", "environment",
      ])
    let payload = try #require(report.payload as? [String: Any])
    #expect(summary["receiptId"] as? String == payload["receiptId"] as? String)
    #expect(report.json.contains("\"verdict\" : \"valid\""))
  }

  @Test("a free trial with auto-renew: entitled through the term and the grace period, not after")
  func freeTrial() throws {
    let file = "aporat-rvs/rvs-subscription-all-fields-free-trial-autorenew.json"
    let renewal: Int64 = 1_561_103_277_035
    let during = try Self.summary(try Self.inspect(file, at: 1_558_424_877_035 + dayMs))
    #expect(during["productType"] as? String == "SUBSCRIPTION")
    #expect(during["productId"] as? String == "com.amazon.iapsamplev2.expansion_set_3")
    #expect(during["entitled"] as? Bool == true)
    #expect(during["expiresAtMs"] as? Int64 == renewal)
    #expect(during["cancelDateMs"] is NSNull)
    #expect(during["cancelReason"] is NSNull)
    #expect(during["autoRenew"] as? Bool == true)
    #expect(during["testTransaction"] as? Bool == true)
    #expect(during["environment"] as? String == "sandbox")
    #expect(try Self.summary(try Self.inspect(file, at: renewal + 60_000))["entitled"] as? Bool == true)
    #expect(try Self.summary(try Self.inspect(file, at: renewal + dayMs))["entitled"] as? Bool == false)
  }

  @Test("cancelled by the customer: the cancel date and reason, entitled only before it")
  func cancelled() throws {
    let file = "aporat-rvs/rvs-subscription-cancelled-by-customer.json"
    let cancel: Int64 = 1_400_784_371_000
    let before = try Self.summary(try Self.inspect(file, at: cancel - 60_000))
    #expect(before["entitled"] as? Bool == true)
    #expect(before["cancelDateMs"] as? Int64 == cancel)
    #expect(before["cancelReason"] as? Int == 1)
    #expect(before["autoRenew"] as? Bool == false)
    #expect(before["expiresAtMs"] as? Int64 == cancel)
    #expect(try Self.summary(try Self.inspect(file, at: cancel + 60_000))["entitled"] as? Bool == false)
  }

  @Test("the queued intro promotion: production, a stale grace date is no reason to be invalid")
  func introQueued() throws {
    let summary = try Self.summary(
      try Self.inspect("aporat-rvs/rvs-subscription-intro-promotion-queued.json", at: 1_651_644_158_000 + 3_600_000))
    #expect(summary["entitled"] as? Bool == true)
    #expect(summary["environment"] as? String == "production")
    #expect(summary["testTransaction"] as? Bool == false)
    #expect(summary["expiresAtMs"] as? Int64 == 1_651_730_558_000)
  }

  @Test("ENTITLED: owned with no expiry (null), years later too; cancelled, it is not")
  func entitled() throws {
    let summary = try Self.summary(try Self.inspect("go-iap/rvs-entitled.json", at: 1_893_456_000_000))
    #expect(summary["productType"] as? String == "ENTITLED")
    #expect(summary["entitled"] as? Bool == true)
    #expect(summary["expiresAtMs"] is NSNull)
    #expect(summary["autoRenew"] as? Bool == false)

    let refunded = try Self.inspect(
      json: #"{"receiptId":"r1","productType":"ENTITLED","productId":"p","purchaseDate":1000,"cancelDate":5000}"#,
      at: 10_000)
    #expect(refunded.isValid)
    #expect(try Self.summary(refunded)["entitled"] as? Bool == false)
    #expect(try Self.summary(refunded)["cancelDateMs"] as? Int64 == 5_000)
    let ahead = try Self.summary(
      try Self.inspect(
        json: #"{"receiptId":"r1","productType":"entitled","productId":"p","purchaseDate":1000,"cancelDate":50000}"#,
        at: 10_000))
    #expect(ahead["entitled"] as? Bool == true)
    #expect(ahead["expiresAtMs"] as? Int64 == 50_000)
    #expect(ahead["productType"] as? String == "ENTITLED")
  }

  @Test(
    "CONSUMABLE: valid, never entitled, no expiry",
    arguments: [
      "aporat-rvs/rvs-consumable-production-2017.json", "aporat-rvs/rvs-consumable-sandbox.json",
    ])
  func consumable(_ file: String) throws {
    let summary = try Self.summary(try Self.inspect(file, at: 1_500_000_000_000))
    #expect(summary["productType"] as? String == "CONSUMABLE")
    #expect(summary["entitled"] as? Bool == false)
    #expect(summary["expiresAtMs"] is NSNull)
  }

  @Test(
    "RVS error bodies are invalid (rvs_error), with no summary",
    arguments: [
      "aporat-rvs/rvs-error-503-body.json", "aporat-rvs/rvs-error-body-documented-status.json",
      "go-iap/rvs-http504-timeout-body.json",
    ])
  func errorBodies(_ file: String) throws {
    let report = try Self.inspect(file, at: 1_600_000_000_000)
    #expect(report.problem?.code == "rvs_error")
    #expect(report.problem?.message.contains("HTTP status") == true)
    #expect(report.summary == nil)
    #expect(report.payload != nil)
  }

  @Test("Appstore Billing Compatibility's products.get answer is not an RVS receipt")
  func billingCompatibility() throws {
    let report = try Self.inspect("docs/billing-compat-products-get-consumable.json", at: 1_500_000_000_000)
    #expect(report.problem?.code == "not_an_rvs_receipt")
    #expect(report.problem?.message.contains("androidpublisher#productPurchase") == true)
  }

  @Test("receipts Tollgate cannot read in full, or would grant nothing for, are invalid with the reason")
  func invalidReceipts() throws {
    let cases: [(json: String, code: String)] = [
      (#"{"productType":"SUBSCRIPTION","productId":"p","purchaseDate":1,"renewalDate":2}"#, "missing_receipt_id"),
      (#"{"receiptId":"r","productType":"GIFT","productId":"p","purchaseDate":1}"#, "unknown_product_type"),
      (#"{"receiptId":"r","productType":"SUBSCRIPTION","productId":"p","renewalDate":2}"#, "missing_purchase_date"),
      (#"{"receiptId":"r","productType":"ENTITLED","purchaseDate":1}"#, "missing_product_id"),
      (#"{"receiptId":"r","productType":"SUBSCRIPTION","productId":"p","purchaseDate":1}"#, "subscription_without_end"),
      (
        #"{"receiptId":"r","productType":"SUBSCRIPTION","productId":"p","purchaseDate":1,"renewalDate":9,"cancelDate":"soon"}"#,
        "unreadable_fields"
      ),
      (#"{"hello":"world"}"#, "not_an_rvs_receipt"),
    ]
    for item in cases {
      let report = try Self.inspect(json: item.json)
      #expect(report.problem?.code == item.code, "\(item.json)")
      #expect(report.json.contains("\"verdict\" : \"invalid\""))
    }
    let unreadable = try Self.inspect(
      json:
        #"{"receiptId":"r","productType":"SUBSCRIPTION","productId":"p","purchaseDate":1,"renewalDate":9,"cancelDate":"soon"}"#
    )
    #expect(unreadable.problem?.message.contains("cancelDate") == true)
    #expect(unreadable.summary != nil)
  }

  @Test("input that is not a JSON object is unreadable", arguments: ["not json", "[1, 2]", "\"text\"", ""])
  func unreadable(_ text: String) {
    #expect(throws: AmazonInspection.Unreadable.self) { try Self.inspect(json: text) }
  }
}
