import Testing
import TollgateCore

@Suite("Trial and intro-offer eligibility")
struct EligibilityTests {
  func offers(_ store: Store, _ histories: [SubscriptionHistory], at now: Int64 = d(100)) -> [String: OfferEligibility]
  {
    Dictionary(
      uniqueKeysWithValues: Eligibility.offers(store: store, histories: histories, config: catalog, at: now).map {
        ($0.productId, $0)
      })
  }

  @Test func newUserIsEligibleEverywhere() {
    for store in [Store.appStore, .googlePlay, .amazon] {
      let result = offers(store, [])
      #expect(result.count == 3)
      #expect(result.values.allSatisfy { $0.introOfferEligible && $0.canPurchase && $0.purchaseKind == .new })
    }
  }

  @Test func appleUsedTrialInTheGroupEndsEligibility() {
    let trial = SubscriptionHistory(
      store: .appStore, purchaseId: "1",
      transactions: [period("t1", "pro_monthly", from: 0, to: 7, offer: .introductory, discount: .freeTrial)])
    #expect(offers(.appStore, [trial]).values.allSatisfy { !$0.introOfferEligible })
    // Another store's history does not count.
    #expect(offers(.googlePlay, [trial]).values.allSatisfy { $0.introOfferEligible })
  }

  @Test func applePaidWithoutIntroOfferStaysEligible() {
    let paid = SubscriptionHistory(
      store: .appStore, purchaseId: "1", transactions: [period("t1", "pro_monthly", from: 0, to: 30)])
    #expect(offers(.appStore, [paid]).values.allSatisfy { $0.introOfferEligible })
  }

  @Test func googleAndAmazonAnyPastSubscriptionEndsEligibility() {
    let google = SubscriptionHistory(
      store: .googlePlay, purchaseId: "tok", transactions: [period("GPA.1", "pro_yearly", from: 0, to: 30)])
    #expect(offers(.googlePlay, [google]).values.allSatisfy { !$0.introOfferEligible })
    let amazon = SubscriptionHistory(
      store: .amazon, purchaseId: "r", transactions: [period("r", "premium", from: 0, to: 30)])
    #expect(offers(.amazon, [amazon]).values.allSatisfy { !$0.introOfferEligible })
  }

  @Test func activeSubscriberSeesUpgradesAndDowngrades() {
    let active = SubscriptionHistory(
      store: .appStore, purchaseId: "1", transactions: [period("t1", "pro_monthly", from: 90, to: 120)],
      renewalInfo: RenewalInfo(willAutoRenew: true))
    let result = offers(.appStore, [active])
    #expect(result["pro_monthly"]?.purchaseKind == .current)
    #expect(result["pro_monthly"]?.canPurchase == false)
    #expect(result["premium"]?.purchaseKind == .upgrade)
    #expect(result["pro_yearly"]?.purchaseKind == .crossgrade)
  }
}
