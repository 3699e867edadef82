import AppStore
import Foundation
import StoreSimulator
import Testing
import TollgateCrypto

@Suite("Store simulator: App Store Server API through the real client and verifier")
struct AppleAPITests {
  @Test("a trial purchase verifies against the simulator's root, renews 31 days later and notifies")
  func purchaseAndRenew() async throws {
    try await Harness.run { harness in
      let sim = harness.sim
      let purchase = try await sim.purchase(
        ApplePurchaseRequest(
          productId: "com.example.monthly", offer: "trial", appAccountToken: "7e3fb20b-4cdb-47cc-936d-99d65f608138"))
      #expect(purchase.transactionId == purchase.originalTransactionId)
      #expect(purchase.transactionId.allSatisfy { $0.isNumber })

      let client = harness.client()
      let statuses = try await client.getAllSubscriptionStatuses(transactionId: purchase.transactionId)
      #expect(statuses.environment == "Sandbox")
      #expect(statuses.bundleId == Harness.bundleId)
      let item = try unwrap(statuses.data?.first?.lastTransactions?.first)
      #expect(item.status == 1)
      let first = try harness.transaction(item.signedTransactionInfo)
      #expect(first.productId == "com.example.monthly")
      #expect(first.offerType == 1)
      #expect(first.offerDiscountType == "FREE_TRIAL")
      #expect(first.transactionReason == "PURCHASE")
      #expect(first.type == "Auto-Renewable Subscription")
      #expect(first.inAppOwnershipType == "PURCHASED")
      #expect(first.subscriptionGroupIdentifier == "21000001")
      #expect(first.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
      #expect(first.purchaseDate == Harness.startMs)
      #expect(first.expiresDate == Harness.startMs + 7 * SimDuration.dayMs)
      #expect(first.signedDate == Harness.startMs)
      let renewal = try harness.renewal(item.signedRenewalInfo)
      #expect(renewal.autoRenewStatus == 1)
      #expect(renewal.autoRenewProductId == "com.example.monthly")
      #expect(renewal.renewalDate == first.expiresDate)

      // The app's own signed transaction verifies too, and the order lookup finds it.
      #expect(try harness.transaction(purchase.signedTransaction).transactionId == purchase.transactionId)
      let order = try await client.lookUpOrderId(purchase.orderId)
      #expect(order.status == 0)
      #expect(
        try order.signedTransactions?.map { try harness.transaction($0).transactionId } == [purchase.transactionId])
      #expect(try await client.lookUpOrderId("NOSUCHORDER").status == 1)

      let advanced = try await sim.advance(byMs: 31 * SimDuration.dayMs)
      #expect(advanced.nowMs == Harness.startMs + 31 * SimDuration.dayMs)
      #expect(advanced.events.map(\.kind) == ["renew"])  // the trial's end, day 7; the next is day 37
      let history = try await client.getAllTransactions(transactionId: purchase.transactionId)
      let chain = try history.map(harness.transaction)
      #expect(chain.count == 2)
      #expect(chain[1].transactionReason == "RENEWAL")
      #expect(chain[1].originalTransactionId == purchase.transactionId)
      #expect(chain[1].purchaseDate == first.expiresDate)
      #expect(chain[1].expiresDate == first.expiresDate.map { $0 + 30 * SimDuration.dayMs })
      #expect(chain[1].offerType == nil)
      #expect(chain[1].signedDate == sim.clockNowMs)
      let info = try await client.getTransactionInfo(transactionId: chain[1].transactionId ?? "")
      #expect(try harness.transaction(info.signedTransactionInfo).transactionId == chain[1].transactionId)

      let received = try harness.received()
      #expect(received.map(\.notificationType) == ["SUBSCRIBED", "DID_RENEW"])
      #expect(received.first?.subtype == "INITIAL_BUY")
      #expect(received.allSatisfy { $0.version == "2.0" && $0.data?.appAppleId == Harness.appAppleId })
      let renewed = try harness.transaction(received.last?.data?.signedTransactionInfo)
      #expect(renewed.transactionId == chain[1].transactionId)
      #expect(received.last?.signedDate == first.expiresDate)
      #expect(Set(received.compactMap(\.notificationUUID)).count == 2)
    }
  }

  @Test("history pages by 20 with revision and hasMore")
  func historyPagination() async throws {
    try await Harness.run { harness in
      let purchase = try await harness.sim.purchase(ApplePurchaseRequest(productId: "com.example.basic.monthly"))
      try await harness.sim.advance(byMs: 30 * 24 * SimDuration.dayMs + 1)
      let client = harness.client()
      let page = try await client.getTransactionHistory(transactionId: purchase.transactionId)
      #expect(page.signedTransactions?.count == 20)
      #expect(page.hasMore == true)
      let all = try await client.getAllTransactions(transactionId: purchase.transactionId)
      #expect(all.count == 25)
      let dates = try all.map { try harness.transaction($0).purchaseDate ?? 0 }
      #expect(dates == dates.sorted())
    }
  }

  @Test("errors as Apple answers them: 404, 400, 401, and the production host does not see sandbox data")
  func errors() async throws {
    try await Harness.run { harness in
      let purchase = try await harness.sim.purchase(ApplePurchaseRequest(productId: "com.example.monthly"))
      do {
        _ = try await harness.client().getTransactionInfo(transactionId: "9999999")
        Issue.record("expected 404")
      } catch let error as AppStoreAPIError {
        #expect(error.code == .notFound)
        #expect(error.apiErrorCode == 4_040_010)
      }
      do {
        _ = try await harness.client().getTransactionInfo(transactionId: "abc")
        Issue.record("expected 400")
      } catch let error as AppStoreAPIError {
        #expect(error.apiErrorCode == 4_000_006)
      }
      do {
        _ = try await harness.client(sandbox: false).getTransactionInfo(transactionId: purchase.transactionId)
        Issue.record("expected 404 from production")
      } catch let error as AppStoreAPIError {
        #expect(error.code == .notFound)
      }
      // A token signed with another key, and an expired one.
      let other = try AppStoreServerAPIToken(
        privateKeyPEM: try P256PrivateKey.generate().pkcs8PEM(), keyId: "KEY123", issuerId: "issuer-1",
        bundleId: Harness.bundleId)
      let expired = harness.token
      for make in [
        { try other.token() }, { try expired.token(nowSeconds: Int64(Date().timeIntervalSince1970) - 7_200) },
      ]
        as [@Sendable () throws -> String]
      {
        let client = AppStoreServerAPIClient(
          config: .init(baseURL: harness.sim.baseURL + "/sandbox"), httpClient: .shared, bearerToken: make,
          logger: Harness.logger)
        do {
          _ = try await client.getAllSubscriptionStatuses(transactionId: purchase.transactionId)
          Issue.record("expected 401")
        } catch let error as AppStoreAPIError {
          #expect(error.code == .unauthorized)
          #expect(error.apiErrorCode == 4_010_000)
        }
      }
    }
  }
}
