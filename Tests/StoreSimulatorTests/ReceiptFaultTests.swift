import AppStore
import AsyncHTTPClient
import Foundation
import StoreSimulator
import Testing

/// The answer faults that verifyReceipt takes, seen by the real verifyReceipt client.
@Suite("Store simulator: answer faults of verifyReceipt")
struct ReceiptFaultTests {
  func client(_ sim: StoreSimulator, timeout: Duration = .seconds(5)) -> VerifyReceiptClient {
    VerifyReceiptClient(
      config: .init(
        productionURL: sim.baseURL + "/verifyReceipt", sandboxURL: sim.baseURL + "/sandbox/verifyReceipt",
        sharedSecret: "s3cret", timeout: timeout),
      httpClient: .shared, logger: Harness.logger)
  }

  @Test("reset, stall, html200, empty200, truncatedJSON: no usable answer; then the real one")
  func receiptFaults() async throws {
    try await Harness.run { harness in
      let sim = harness.sim
      let purchase = try await sim.purchase(ApplePurchaseRequest(productId: "com.example.monthly"))
      let expected: [(FaultRule.Mode, AppStoreAPIError.Code)] = [
        (.reset, .transport), (.stall, .transport), (.html200, .invalidResponse), (.empty200, .invalidResponse),
        (.truncatedJSON, .invalidResponse), (.error500, .serverError), (.rateLimit, .rateLimited),
      ]
      for (mode, code) in expected {
        try sim.addFault(FaultRule(target: "apple.verifyReceipt", mode: mode, retryAfterSeconds: 3))
        do {
          _ = try await client(sim, timeout: .milliseconds(500)).verify(
            receiptData: purchase.receiptData, startAt: .sandbox)
          Issue.record("\(mode): expected a failure")
        } catch let error as AppStoreAPIError {
          #expect(error.code == code, "\(mode)")
        }
      }
      #expect(sim.appliedFaults.map(\.mode) == expected.map(\.0))
      let outcome = try await client(sim).verify(receiptData: purchase.receiptData, startAt: .sandbox)
      #expect(outcome.status == 0)
    }
  }
}
