import AmazonAppstore
import Testing
import TollgateCore
import TollgateTesting

/// The RVS vectors mapped to Core and evaluated; the expected states follow Amazon's field
/// descriptions (https://developer.amazon.com/docs/in-app-purchasing/iap-rvs-for-android-apps.html)
/// and docs/lifecycle.md's Amazon table.
@Suite("Mapping the RVS vectors", .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
struct MappingVectorTests {
  static func mapped(_ file: String, asOfMs: Int64) throws -> (RVSReceipt, AmazonMapping) {
    let receipt = try AmazonVectors.receipt(file)
    return (receipt, AmazonMapping(receipt: receipt, environment: .production, asOfMs: asOfMs))
  }

  @Test("free trial with auto-renew: trial until renewalDate, grace until gracePeriodEndDate, then billing retry")
  func freeTrialGraceRetry() throws {
    let purchase: Int64 = 1_558_424_877_035
    let renewal: Int64 = 1_561_103_277_035
    let grace: Int64 = 1_561_104_377_013
    let (receipt, mapping) = try Self.mapped(
      "aporat-rvs/rvs-subscription-all-fields-free-trial-autorenew.json", asOfMs: purchase + dayMs)
    #expect(!mapping.failsClosed)
    #expect(mapping.history.store == .amazon)
    #expect(mapping.history.purchaseId == receipt.receiptId)
    #expect(mapping.history.environment == .sandbox)

    let trial = evaluate(mapping, at: purchase + dayMs)
    #expect(trial.state == .trial)
    #expect(trial.expiresAtMs == renewal)
    #expect(trial.willRenew)
    #expect(trial.isSandbox)
    #expect(trial.productId == "sub1-weekly_term")
    #expect(trial.transactionId == receipt.receiptId)

    let inGrace = evaluate(mapping, at: renewal + 5 * 60_000)
    #expect(inGrace.state == .gracePeriod)
    #expect(inGrace.accessEndsAtMs == grace)
    #expect(inGrace.state.isEntitledByDefault)

    let retry = evaluate(mapping, at: grace + 3_600_000)
    #expect(retry.state == .billingRetry)
    #expect(!retry.state.isEntitledByDefault)
  }

  @Test("cancelled by the customer (cancelReason 1, no renewalDate): active until cancelDate, then expired")
  func cancelledByCustomer() throws {
    let purchase: Int64 = 1_400_784_241_000
    let cancel: Int64 = 1_400_784_371_000
    let (_, mapping) = try Self.mapped("aporat-rvs/rvs-subscription-cancelled-by-customer.json", asOfMs: cancel + 1)
    #expect(!mapping.failsClosed)
    let before = evaluate(mapping, at: purchase + 60_000)
    #expect(before.state == .active)
    #expect(!before.willRenew)
    let after = evaluate(mapping, at: cancel + dayMs)
    #expect(after.state == .expired)
    #expect(after.reason == .customerCanceled)
    #expect(after.accessEndsAtMs <= cancel)
    #expect(!after.willRenew)
  }

  @Test("intro price queued behind a free trial: trial now; the stale grace date is noise, not an expiry")
  func introQueued() throws {
    let purchase: Int64 = 1_651_644_158_000
    let renewal: Int64 = 1_651_730_558_000
    let (receipt, mapping) = try Self.mapped(
      "aporat-rvs/rvs-subscription-intro-promotion-queued.json", asOfMs: purchase + 3_600_000)
    #expect(mapping.history.environment == .production)
    #expect(
      mapping.notes.contains(
        .staleGracePeriodEndDate(receiptId: receipt.receiptId ?? "", gracePeriodEndDate: 1_606_985_788_979)))
    #expect(mapping.history.renewalInfo?.gracePeriodExpiresDateMs == nil)
    #expect(!mapping.failsClosed)
    let now = evaluate(mapping, at: purchase + 3_600_000)
    #expect(now.state == .trial)
    #expect(now.expiresAtMs == renewal)
    #expect(now.willRenew)
    #expect(!now.isSandbox)
    #expect(evaluate(mapping, at: renewal + 3 * dayMs).state == .expired)
  }

  @Test("RVS sandbox example: a free trial to the renewal date, auto-renew off, grace equal to renewal is no grace")
  func sandboxDocExample() throws {
    let purchase: Int64 = 1_604_613_233_106
    let renewal: Int64 = 1_606_985_788_979
    let (_, mapping) = try Self.mapped("docs/rvs-sandbox-subscription-free-trial.json", asOfMs: purchase + dayMs)
    let now = evaluate(mapping, at: purchase + dayMs)
    #expect(now.state == .trial)
    #expect(!now.willRenew)
    #expect(now.accessEndsAtMs == renewal)
    #expect(now.isSandbox)
    let after = evaluate(mapping, at: renewal + 60_000)
    #expect(after.state == .expired)
  }

  @Test("go-iap mixed case: the GracePeriodEndDate it spells differently still grants grace after the term")
  func mixedCaseGrace() throws {
    let renewal: Int64 = 1_561_103_277_035
    let (_, mapping) = try Self.mapped("go-iap/rvs-subscription-free-trial-mixedcase.json", asOfMs: renewal)
    #expect(evaluate(mapping, at: renewal - dayMs).state == .trial)
    let grace = evaluate(mapping, at: renewal + 60_000)
    #expect(grace.state == .gracePeriod)
    #expect(grace.accessEndsAtMs == 1_561_104_377_013)
  }

  @Test("ENTITLED: owned for life (expiresAtMs is the largest Int64) until cancelled")
  func entitled() throws {
    let (receipt, mapping) = try Self.mapped("go-iap/rvs-entitled.json", asOfMs: 1_893_456_000_000)
    #expect(mapping.history.renewalInfo == nil)
    let now = evaluate(mapping, at: 1_893_456_000_000)
    #expect(now.state == .active)
    #expect(now.expiresAtMs == Int64.max)
    #expect(now.accessEndsAtMs == Int64.max)
    #expect(now.productId == "com.amazon.iapsamplev2.expansion_set_3")
    #expect(now.transactionId == receipt.receiptId)
    #expect(now.isSandbox)
  }

  @Test(
    "CONSUMABLE: nothing lasting is granted, and the note says why (not a fail-closed)",
    arguments: [
      "aporat-rvs/rvs-consumable-production-2017.json", "aporat-rvs/rvs-consumable-sandbox.json",
      "docs/billing-compat-products-get-consumable.json",
    ])
  func consumable(_ file: String) throws {
    let (receipt, mapping) = try Self.mapped(file, asOfMs: 1_500_000_000_000)
    #expect(mapping.history.transactions.isEmpty)
    #expect(mapping.notes == [.consumable(receiptId: receipt.receiptId ?? "")])
    #expect(!mapping.failsClosed)
    #expect(!evaluate(mapping, at: (receipt.purchaseDate ?? 0) + 60_000).state.isEntitledByDefault)
  }
}
