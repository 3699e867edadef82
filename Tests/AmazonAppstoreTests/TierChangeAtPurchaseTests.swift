import AmazonAppstore
import Testing
import TollgateCore

/// Issue 24, item 9: a tier change at the very instant of purchase replaced the receipt; it is no refund.
@Suite("Amazon tier change at the instant of purchase")
struct TierChangeAtPurchaseTests {
  @Test("cancelReason 4 with cancelDate == purchaseDate: replaced, never refunded")
  func replacedNotRefunded() {
    let receipt = MappingRulesTests.subscription(autoRenewing: false, cancel: 0, reason: 4)
    let mapping = MappingRulesTests.map([receipt], asOf: 0)
    #expect(mapping.history.transactions.allSatisfy { $0.revocationDateMs == nil })
    let state = evaluate(mapping, at: 0)
    #expect(state.state != .revoked)
    #expect(!state.isEntitled)
    // A customer-service cancellation at the same instant is still a refund.
    let refunded = MappingRulesTests.map(
      [MappingRulesTests.subscription(autoRenewing: false, cancel: 0, reason: 1)], asOf: 0)
    #expect(evaluate(refunded, at: 0).state == .revoked)
  }
}
