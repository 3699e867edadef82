import AppStore
import Foundation
import StoreSimulator
import Testing

@Suite("Store simulator: subscription lifecycle on the virtual clock")
struct LifecycleTests {
  @Test("failed renewals: grace period, billing retry, then expiry after the retry window")
  func billingFailureToExpiry() async throws {
    try await Harness.run { harness in
      let sim = harness.sim
      let purchase = try await sim.purchase(ApplePurchaseRequest(productId: "com.example.monthly"))
      let id = purchase.originalTransactionId
      try await sim.failRenewals(id)
      try await sim.advance(byMs: 30 * SimDuration.dayMs)
      #expect(try await harness.status(id) == 4)
      let statuses = try await harness.client().getAllSubscriptionStatuses(transactionId: id)
      let renewal = try harness.renewal(statuses.data?.first?.lastTransactions?.first?.signedRenewalInfo)
      #expect(renewal.isInBillingRetryPeriod == true)
      #expect(renewal.gracePeriodExpiresDate == Harness.startMs + 36 * SimDuration.dayMs)
      try await sim.advance(byMs: 6 * SimDuration.dayMs)
      #expect(try await harness.status(id) == 3)
      try await sim.advance(byMs: 60 * SimDuration.dayMs)
      #expect(try await harness.status(id) == 2)
      #expect(
        harness.sentTypes == [
          "SUBSCRIBED/INITIAL_BUY", "DID_FAIL_TO_RENEW/GRACE_PERIOD", "GRACE_PERIOD_EXPIRED", "EXPIRED/BILLING_RETRY",
        ])
      let expired = try await harness.client().getAllSubscriptionStatuses(transactionId: id)
      let info = try harness.renewal(expired.data?.first?.lastTransactions?.first?.signedRenewalInfo)
      #expect(info.expirationIntent == 2)
      #expect(info.isInBillingRetryPeriod == false)
      // Resubscribing continues the same chain.
      let again = try await sim.purchase(
        ApplePurchaseRequest(productId: "com.example.monthly", originalTransactionId: id))
      #expect(again.originalTransactionId == id)
      #expect(harness.sentTypes.last == "SUBSCRIBED/RESUBSCRIBE")
      #expect(try await harness.status(id) == 1)
    }
  }

  @Test("recovering billing makes the next retry succeed: DID_RENEW/BILLING_RECOVERY")
  func billingRecovery() async throws {
    try await Harness.run { harness in
      let sim = harness.sim
      let id = try await sim.purchase(ApplePurchaseRequest(productId: "com.example.monthly")).originalTransactionId
      try await sim.failRenewals(id)
      try await sim.advance(byMs: 30 * SimDuration.dayMs + 1)
      try await sim.recoverBilling(id)
      let result = try await sim.advance(byMs: SimDuration.dayMs)
      #expect(result.events.map(\.outcome).contains { $0.hasPrefix("billing recovered") })
      #expect(try await harness.status(id) == 1)
      #expect(harness.sentTypes.last == "DID_RENEW/BILLING_RECOVERY")
      let chain = try await harness.client().getAllTransactions(transactionId: id).map(harness.transaction)
      // Recovered inside the grace period: the new period starts where the old one ended.
      #expect(chain.last?.expiresDate == Harness.startMs + 60 * SimDuration.dayMs)
    }
  }

  @Test("auto-renew off expires at the period's end (EXPIRED/VOLUNTARY)")
  func voluntaryExpiry() async throws {
    try await Harness.run { harness in
      let sim = harness.sim
      let id = try await sim.purchase(ApplePurchaseRequest(productId: "com.example.monthly")).originalTransactionId
      try await sim.setAutoRenew(id, enabled: false)
      try await sim.advance(byMs: 31 * SimDuration.dayMs)
      #expect(
        harness.sentTypes == [
          "SUBSCRIBED/INITIAL_BUY", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "EXPIRED/VOLUNTARY",
        ])
      #expect(try await harness.status(id) == 2)
    }
  }

  @Test("upgrade is immediate and marks the old transaction; downgrade waits for the renewal")
  func upgradeAndDowngrade() async throws {
    try await Harness.run { harness in
      let sim = harness.sim
      let id = try await sim.purchase(ApplePurchaseRequest(productId: "com.example.monthly")).originalTransactionId
      try await sim.advance(byMs: 10 * SimDuration.dayMs)
      try await sim.changeProduct(id, to: "com.example.premium.monthly")
      var chain = try await harness.client().getAllTransactions(transactionId: id).map(harness.transaction)
      #expect(chain.map(\.productId) == ["com.example.monthly", "com.example.premium.monthly"])
      #expect(chain[0].isUpgraded == true)
      #expect(chain[1].purchaseDate == Harness.startMs + 10 * SimDuration.dayMs)
      try await sim.changeProduct(id, to: "com.example.basic.monthly")
      #expect(try sim.subscription(id).autoRenewProductId == "com.example.basic.monthly")
      try await sim.advance(byMs: 30 * SimDuration.dayMs)
      chain = try await harness.client().getAllTransactions(transactionId: id).map(harness.transaction)
      #expect(chain.last?.productId == "com.example.basic.monthly")
      #expect(
        harness.sentTypes == [
          "SUBSCRIBED/INITIAL_BUY", "DID_CHANGE_RENEWAL_PREF/UPGRADE", "DID_CHANGE_RENEWAL_PREF/DOWNGRADE", "DID_RENEW",
        ])
    }
  }

  @Test("refund revokes the transaction and the family member's access")
  func refundAndFamily() async throws {
    try await Harness.run { harness in
      let sim = harness.sim
      let id = try await sim.purchase(ApplePurchaseRequest(productId: "com.example.monthly")).originalTransactionId
      let member = try await sim.familyShare(id, appAccountToken: "0c6b3cd6-1f6a-4c55-8e5d-9a1b1b1b1b1b")
      let shared = try harness.transaction(member.signedTransaction)
      #expect(shared.inAppOwnershipType == "FAMILY_SHARED")
      #expect(shared.originalTransactionId != id)
      try await sim.refund(id, reason: 1)
      #expect(try await harness.status(id) == 5)
      #expect(try await harness.status(member.originalTransactionId) == 5)
      #expect(harness.sentTypes == ["SUBSCRIBED/INITIAL_BUY", "SUBSCRIBED/INITIAL_BUY", "REVOKE", "REFUND"])
      let refunds = try await harness.client().getRefundHistory(transactionId: id)
      let refunded = try unwrap(refunds.signedTransactions?.first).self
      let transaction = try harness.transaction(refunded)
      #expect(transaction.revocationReason == 1)
      #expect(transaction.revocationDate == Harness.startMs)
      let notification = try harness.received().last
      #expect(notification?.notificationType == "REFUND")
      #expect(notification?.data?.status == 5)
    }
  }
}
