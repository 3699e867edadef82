import Testing
import TollgateCore

@Suite("Entitlements")
struct EntitlementTests {
  static let appleActive = SubscriptionHistory(
    store: .appStore, purchaseId: "1000", transactions: [period("t1", "premium", from: 0, to: 30)],
    renewalInfo: RenewalInfo(willAutoRenew: true))

  @Test func oneRecordPerEntitlementOfTheProduct() {
    let evaluation = catalog.evaluate(Self.appleActive, at: d(10))
    let records = EntitlementMapping.records(
      userId: "u1", subscription: evaluation, config: catalog, verifiedAtMs: d(10))
    #expect(records.map(\.entitlement).sorted() == ["premium_content", "pro"])
    for record in records {
      #expect(record.source == "app_store:1000")
      #expect(record.store == .appStore)
      #expect(record.state == .active)
      #expect(record.expiresAtMs == d(30))
      #expect(record.accessEndsAtMs == d(31), "expiry + one day of renewal leeway while auto-renew is on")
      #expect(record.willRenew)
      #expect(record.verifiedAtMs == d(10))
    }
  }

  @Test func graceAndNonEntitledAccessEnds() {
    let grace = SubscriptionHistory(
      store: .appStore, purchaseId: "1000", transactions: [period("t1", "pro_monthly", from: 0, to: 30)],
      renewalInfo: RenewalInfo(willAutoRenew: true, isInBillingRetryPeriod: true, gracePeriodExpiresDateMs: d(46)))
    let inGrace = EntitlementMapping.records(
      userId: "u", subscription: catalog.evaluate(grace, at: d(35)), config: catalog, verifiedAtMs: d(35))
    #expect(inGrace.map(\.accessEndsAtMs) == [d(46)])
    let retry = EntitlementMapping.records(
      userId: "u", subscription: catalog.evaluate(grace, at: d(50)), config: catalog, verifiedAtMs: d(50))
    #expect(retry.map(\.state) == [.billingRetry])
    #expect(retry.allSatisfy { $0.accessEndsAtMs <= d(46) })
  }

  @Test func unknownProductGrantsNothing() {
    let history = SubscriptionHistory(
      store: .googlePlay, purchaseId: "tok", transactions: [period("GPA.1", "mystery", from: 0, to: 30)])
    let records = EntitlementMapping.records(
      userId: "u", subscription: catalog.evaluate(history, at: d(1)), config: catalog, verifiedAtMs: d(1))
    #expect(records.isEmpty)
  }

  @Test func promotionalGrantRecords() {
    let grant = PromotionalGrant(grantId: "g-7", userId: "u", entitlement: "pro", grantedAtMs: d(0), expiresAtMs: d(14))
    let record = grant.entitlementRecord(verifiedAtMs: d(1))
    #expect(record.store == .promotional)
    #expect(record.source == "promotional:g-7")
    #expect(record.state == .active)
    #expect(record.accessEndsAtMs == d(14))
    #expect(record.evaluated(at: d(13)).active)
    #expect(!record.evaluated(at: d(14)).active)
    var withdrawn = grant
    withdrawn.revokedAtMs = d(3)
    let revoked = withdrawn.entitlementRecord(verifiedAtMs: d(3))
    #expect(revoked.state == .revoked)
    #expect(revoked.accessEndsAtMs == d(3))
    #expect(!revoked.evaluated(at: d(4)).active)
  }

  @Test func acrossStoresAndGrantsTheLongestActiveSourceWins() {
    let google = SubscriptionHistory(
      store: .googlePlay, purchaseId: "tok", transactions: [period("GPA.1", "pro_monthly", from: 0, to: 20)],
      renewalInfo: RenewalInfo(willAutoRenew: false, googlePlayState: .canceled))
    let amazonExpired = SubscriptionHistory(
      store: .amazon, purchaseId: "r", transactions: [period("r", "pro_monthly", from: 0, to: 5)],
      renewalInfo: RenewalInfo(willAutoRenew: false, cancelDateMs: d(5)))
    let grant = PromotionalGrant(grantId: "g", userId: "u", entitlement: "pro", grantedAtMs: d(0), expiresAtMs: d(60))
    let records = EntitlementMapping.records(
      userId: "u", histories: [Self.appleActive, google, amazonExpired], grants: [grant], config: catalog, nowMs: d(10))
    let summaries = UserEntitlements.evaluate(records, at: d(10))
    #expect(summaries.map(\.entitlement) == ["premium_content", "pro"])
    let pro = summaries[1]
    #expect(pro.isActive)
    #expect(pro.source == "promotional:g")
    #expect(pro.accessEndsAtMs == d(60))
    #expect(pro.accessLevel == .full)
    let premium = summaries[0]
    #expect(premium.source == "app_store:1000")
    #expect(premium.expiresAtMs == d(30))
    // After every source ended, the entitlement is listed as inactive.
    let later = UserEntitlements.evaluate(records, at: d(61))
    #expect(later.allSatisfy { !$0.isActive && $0.accessLevel == .none })
  }

  @Test func configuredAccessLevelDuringBillingRetry() {
    let retry = SubscriptionHistory(
      store: .appStore, purchaseId: "1000", transactions: [period("t1", "pro_monthly", from: 0, to: 30)],
      renewalInfo: RenewalInfo(willAutoRenew: true, isInBillingRetryPeriod: true))
    let records = EntitlementMapping.records(
      userId: "u", histories: [retry], grants: [], config: catalog, nowMs: d(35))
    let policy = AccessLevelPolicy(levels: [.billingRetry: "read_only"])
    let summary = UserEntitlements.evaluate(records, at: d(35), accessLevels: policy)
    #expect(summary.map(\.isActive) == [false])
    #expect(summary.map(\.accessLevel) == ["read_only"])
    #expect(UserEntitlements.evaluate(records, at: d(35)).map(\.accessLevel) == [.none])
  }
}
