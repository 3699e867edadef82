import AppStore
import AsyncHTTPClient
import Foundation
import NIOCore
import StoreSimulator
import Testing
import TollgateCrypto

/// What a device holds of a purchase, and when it was made: the receipts Tollgate weighs a
/// transfer by (issue 17, a transfer needs a fresh payload the store signed).
@Suite("Store simulator: app receipts and restores")
struct AppleReceiptsAndRestoreTests {
  @Test("a purchase hands out a PKCS#7 app receipt signed by the receipt-signing leaf, made at the purchase")
  func appReceipt() async throws {
    try await Harness.run { harness in
      let sim = harness.sim
      let purchase = try await sim.purchase(ApplePurchaseRequest(productId: "com.example.monthly"))
      let verifier = AppReceiptVerifier(rootCertificates: [sim.rootCertificate], bundleId: Harness.bundleId)
      let receipt = try unwrap(verifier.verify(base64: try unwrap(purchase.appReceipt)).payload)
      #expect(receipt.receiptType == "ProductionSandbox")
      #expect(receipt.creationDateMs == Harness.startMs)
      #expect(receipt.transactionIdForLookup == purchase.originalTransactionId)
      #expect(receipt.inAppPurchases.first?.productId == "com.example.monthly")
      #expect(receipt.inAppPurchases.first?.expiresDateMs == Harness.startMs + 30 * SimDuration.dayMs)
    }
  }

  @Test("verifyReceipt dates a receipt when it was made; a restore signs the latest transaction and receipts anew")
  func restore() async throws {
    try await Harness.run { harness in
      let sim = harness.sim
      let purchase = try await sim.purchase(ApplePurchaseRequest(productId: "com.example.monthly"))
      try await sim.advance(byMs: 2 * SimDuration.dayMs)
      let client = VerifyReceiptClient(
        config: .init(
          productionURL: sim.baseURL + "/verifyReceipt", sandboxURL: sim.baseURL + "/sandbox/verifyReceipt",
          sharedSecret: "s3cret"),
        httpClient: .shared, logger: Harness.logger)
      let old = try await client.verify(receiptData: purchase.receiptData)
      #expect(try unwrap(VerifyReceiptResponse.decode(old.body)).receiptCreationDate == Harness.startMs)

      // Over HTTP, as `POST /sim/apple/subscriptions/{id}/restore`.
      var request = HTTPClientRequest(url: sim.baseURL + "/sim/apple/subscriptions/\(purchase.transactionId)/restore")
      request.method = .POST
      let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
      #expect(response.status.code == 200)
      let body = try await response.body.collect(upTo: 1 << 20)
      let restored = try JSONDecoder().decode(ApplePurchaseResult.self, from: Data(body.readableBytesView))
      #expect(restored.originalTransactionId == purchase.originalTransactionId)
      let now = Harness.startMs + 2 * SimDuration.dayMs
      let payload = try JWS.parse(restored.signedTransaction).get().payload
      let signed = try unwrap(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
      #expect((signed["signedDate"] as? NSNumber)?.int64Value == now)
      let fresh = try await client.verify(receiptData: restored.receiptData)
      #expect(try unwrap(VerifyReceiptResponse.decode(fresh.body)).receiptCreationDate == now)
      let verifier = AppReceiptVerifier(rootCertificates: [sim.rootCertificate])
      #expect(verifier.verify(base64: try unwrap(restored.appReceipt)).payload?.creationDateMs == now)

      #expect(throws: StoreSimulatorError.self) { try sim.restore("42") }
    }
  }
}
