import AppStore
import Foundation
import Testing
import TollgateCrypto
import TollgateTesting

/// EXPECTED-apple.md: xcode receipts, `receipts/` against `roots/`, legacy verifyReceipt bodies.
@Suite("Legacy app receipts", .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
struct ReceiptTests {
  func verifier(_ root: String, bundleId: String? = nil) throws -> AppReceiptVerifier {
    AppReceiptVerifier(rootCertificates: [try Fixtures.root("apple/roots/" + root)], bundleId: bundleId)
  }

  @Test func xcodeReceiptEmpty() throws {
    let text = try Vectors.string("apple/apple-lib/xcode/xcode-app-receipt-empty")
    let receipt = try #require(try verifier("StoreKitTestCertificate.cer").verify(base64: text).payload)
    #expect(receipt.receiptType == "Xcode")
    #expect(receipt.bundleId == "com.example.naturelab.backyardbirds.example")
    #expect(receipt.applicationVersion == "1")
    #expect(receipt.creationDateMs == 1_697_678_334_000)  // 2023-10-19T01:18:54Z
    #expect(receipt.expirationDateMs == 64_092_211_200_000)  // 4001-01-01T00:00:00Z
    #expect(receipt.inAppPurchases.isEmpty && receipt.transactionIdForLookup == nil)
  }

  @Test func xcodeReceiptWithTransaction() throws {
    let text = try Vectors.string("apple/apple-lib/xcode/xcode-app-receipt-with-transaction")
    let receipt = try #require(try verifier("StoreKitTestCertificate.cer").verify(base64: text).payload)
    #expect(receipt.creationDateMs == 1_697_679_940_000)  // 2023-10-19T01:45:40Z
    let purchase = try #require(receipt.inAppPurchases.first)
    #expect(receipt.inAppPurchases.count == 1)
    #expect(purchase.productId == "pass.premium" && purchase.transactionId == "0")
    #expect(purchase.purchaseDateMs == 1_697_679_936_000 && purchase.expiresDateMs == 1_700_358_336_000)
    #expect(purchase.isInIntroOfferPeriod == true)
    #expect(receipt.transactionIdForLookup == "0")
  }

  @Test(arguments: ["receipt-production.b64", "receipt-sandbox-g5.b64", "receipt-sandbox-legacy.b64"])
  func appleSignedReceipts(file: String) throws {
    let text = try Vectors.string("apple/receipts/" + file)
    let result = try verifier("AppleIncRootCertificate.cer").verify(base64: text)
    let receipt = try #require(result.payload, "\(String(describing: result.error))")
    #expect(receipt.bundleId?.isEmpty == false)
    #expect(receipt.creationDateMs != nil)
    // The same receipt does not chain to a JWS root or the StoreKit test certificate.
    #expect(try verifier("AppleRootCA-G3.cer").verify(base64: text).error?.code == .verificationFailure)
    #expect(try verifier("StoreKitTestCertificate.cer").verify(base64: text).error?.code == .verificationFailure)
  }

  @Test func xcodeReceiptIsNotAppleSigned() throws {
    let text = try Vectors.string("apple/receipts/receipt-xcode.b64")
    let receipt = try #require(try verifier("StoreKitTestCertificate.cer").verify(base64: text).payload)
    #expect(receipt.receiptType == "Xcode" && receipt.inAppPurchases.count == 1)
    #expect(try verifier("AppleIncRootCertificate.cer").verify(base64: text).error?.code == .verificationFailure)
  }

  @Test func wrongBundleAndGarbage() throws {
    let text = try Vectors.string("apple/apple-lib/xcode/xcode-app-receipt-empty")
    #expect(
      try verifier("StoreKitTestCertificate.cer", bundleId: "com.other").verify(base64: text).error?.code
        == .invalidAppIdentifier)
    #expect(try verifier("StoreKitTestCertificate.cer").verify(base64: "not base64!").error?.code == .malformedBase64)
    #expect(try verifier("StoreKitTestCertificate.cer").verify(base64: "aGVsbG8=").error?.code == .malformedPayload)
  }

  @Test func tamperedReceiptContent() throws {
    var der = try #require(
      Base64.decode(
        try Vectors.string("apple/apple-lib/xcode/xcode-app-receipt-with-transaction"), ignoringWhitespace: true))
    // Flip one byte of "pass.premium" inside the signed content.
    let needle = Array("pass.premium".utf8)
    let index = try #require((0..<(der.count - needle.count)).first { Array(der[$0..<$0 + needle.count]) == needle })
    der[index] = UInt8(ascii: "b")
    #expect(try verifier("StoreKitTestCertificate.cer").verify(der: der).error?.code == .signatureMismatch)
  }
}
