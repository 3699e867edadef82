import Testing
import TollgateCore

/// Amazon Appstore paths of docs/lifecycle.md. Each row is an RVS response for one receiptId:
/// the term from `purchaseDate` to `renewalDate`, with `autoRenewing`, `cancelDate`,
/// `cancelReason`, `gracePeriodEndDate`, `freeTrialEndDate`, `deferredSku`, `testTransaction`.
enum AmazonRows {
  static func receipt(
    _ terms: [StoreTransaction], autoRenewing: Bool = true, cancelDate: Int64? = nil, cancelReason: Int? = nil,
    gracePeriodEnd: Int64? = nil, deferredSku: String? = nil, test: Bool = false
  ) -> SubscriptionHistory {
    receipt(
      "receipt-1", terms, autoRenewing: autoRenewing, cancelDate: cancelDate, cancelReason: cancelReason,
      gracePeriodEnd: gracePeriodEnd, deferredSku: deferredSku, test: test)
  }

  static func receipt(
    _ id: String, _ terms: [StoreTransaction], autoRenewing: Bool = true, cancelDate: Int64? = nil,
    cancelReason: Int? = nil, gracePeriodEnd: Int64? = nil, deferredSku: String? = nil, parent: String? = "pro_parent",
    test: Bool = false
  ) -> SubscriptionHistory {
    SubscriptionHistory(
      store: .amazon, purchaseId: id, environment: test ? .sandbox : .production, transactions: terms,
      renewalInfo: RenewalInfo(
        willAutoRenew: autoRenewing, autoRenewProductId: deferredSku,
        expirationIntent: cancelReason.flatMap { ExpirationIntent(amazonCancelReason: $0) },
        gracePeriodExpiresDateMs: gracePeriodEnd.map { d($0) }, cancelDateMs: cancelDate.map { d($0) }),
      parentProductId: parent)
  }

  static func term(_ id: String = "receipt-1", _ product: String = "pro_monthly", to: Int64, from: Int64 = 0)
    -> StoreTransaction
  { period(id, product, from: from, to: to) }

  static let buyRenewOptOutExpire: [LifecycleCase] = [
    LifecycleCase(
      name: "purchase: renewalDate ahead, autoRenewing", history: receipt([term(to: 30)]), now: d(10),
      expect: Expect(state: .active, expiresOn: d(30), accessEndsAt: d(31), willRenew: true)),
    LifecycleCase(
      name: "renewal: same receiptId, renewalDate moves on", history: receipt([term(to: 60)]), now: d(40),
      expect: Expect(state: .active, expiresOn: d(60), entitled: true)),
    LifecycleCase(
      name: "auto-renew off: cancelDate stays null until the term ends",
      history: receipt([term(to: 60)], autoRenewing: false), now: d(50),
      expect: Expect(state: .active, accessEndsAt: d(60), willRenew: false, entitled: true)),
    LifecycleCase(
      name: "term over: cancelDate = end of term, cancelReason 1",
      history: receipt([term(to: 60)], autoRenewing: false, cancelDate: 60, cancelReason: 1), now: d(61),
      expect: Expect(state: .expired, reason: .customerCanceled, accessEndsAt: d(60), willRenew: false, entitled: false)
    ),
  ]

  static let trialToPaid: [LifecycleCase] = [
    LifecycleCase(
      name: "before freeTrialEndDate: trial",
      history: receipt([
        period("receipt-1#trial", "pro_monthly", from: 0, to: 7, offer: .introductory, discount: .freeTrial),
        term(to: 37, from: 7),
      ]), now: d(3), expect: Expect(state: .trial, expiresOn: d(37), entitled: true)),
    LifecycleCase(
      name: "after freeTrialEndDate: active",
      history: receipt([
        period("receipt-1#trial", "pro_monthly", from: 0, to: 7, offer: .introductory, discount: .freeTrial),
        term(to: 37, from: 7),
      ]), now: d(8), expect: Expect(state: .active, expiresOn: d(37))),
  ]

  static let graceRecovered: [LifecycleCase] = [
    LifecycleCase(
      name: "renewal failed, before gracePeriodEndDate: grace period",
      history: receipt([term(to: 30)], gracePeriodEnd: 37), now: d(33),
      expect: Expect(state: .gracePeriod, accessEndsAt: d(37), willRenew: true, entitled: true, gracePeriodEnd: d(37))),
    LifecycleCase(
      name: "gracePeriodEndDate equal to renewalDate is no grace period",
      history: receipt([term(to: 30)], gracePeriodEnd: 30), now: d(10), expect: Expect(state: .active, entitled: true)),
    LifecycleCase(
      name: "payment recovered: renewalDate moves on", history: receipt([term(to: 60)]), now: d(33),
      expect: Expect(state: .active, expiresOn: d(60), entitled: true)),
  ]

  static let retryExpired: [LifecycleCase] = [
    LifecycleCase(
      name: "after gracePeriodEndDate, not canceled yet: billing retry",
      history: receipt([term(to: 30)], gracePeriodEnd: 37), now: d(40),
      expect: Expect(state: .billingRetry, accessEndsAt: d(37), entitled: false)),
    LifecycleCase(
      name: "cancelReason 2: Amazon canceled after failed payment",
      history: receipt([term(to: 30)], autoRenewing: false, cancelDate: 37, cancelReason: 2, gracePeriodEnd: 37),
      now: d(40), expect: Expect(state: .expired, reason: .billingError, entitled: false)),
  ]

  static let refunds: [LifecycleCase] = [
    LifecycleCase(
      name: "cancelDate inside the term (customer service cancellation): revoked from cancelDate",
      history: receipt([term(to: 30)], autoRenewing: false, cancelDate: 20, cancelReason: 1), now: d(21),
      expect: Expect(state: .revoked, reason: .refunded, accessEndsAt: d(20), entitled: false)),
    LifecycleCase(
      name: "refund of an older term: the current term is untouched",
      history: receipt([period("receipt-1#1", "pro_monthly", from: 0, to: 30, revokedOn: 10), term(to: 60, from: 30)]),
      now: d(40), expect: Expect(state: .active, expiresOn: d(60), entitled: true)),
  ]

  static let productChanges: [LifecycleCase] = [
    LifecycleCase(
      name: "tier upgrade: old receipt canceled with cancelReason 4",
      history: receipt([term(to: 30)], autoRenewing: false, cancelDate: 10, cancelReason: 4), now: d(15),
      expect: Expect(state: .expired, reason: .replaced, accessEndsAt: d(10), entitled: false)),
    LifecycleCase(
      name: "tier upgrade: a newer receipt under the same parentProductId ends the old one",
      history: receipt([term(to: 30)]), now: d(15),
      expect: Expect(state: .expired, reason: .replaced, accessEndsAt: d(10)),
      others: [receipt("receipt-2", [term("receipt-2", "premium", to: 40, from: 10)])]),
    LifecycleCase(
      name: "tier upgrade: the new receipt is active",
      history: receipt("receipt-2", [term("receipt-2", "premium", to: 40, from: 10)]), now: d(15),
      expect: Expect(state: .active, productId: "premium", entitled: true),
      others: [receipt([term(to: 30)], autoRenewing: false, cancelDate: 10, cancelReason: 4)]),
    LifecycleCase(
      name: "downgrade: deferredSku takes effect at deferredDate",
      history: receipt([term("receipt-1", "premium", to: 30)], deferredSku: "pro_monthly"), now: d(10),
      expect: Expect(
        state: .active, change: ProductChange(fromProductId: "premium", toProductId: "pro_monthly", kind: .downgrade))),
    LifecycleCase(
      name: "crossgrade: deferredSku of the same level",
      history: receipt([term(to: 30)], deferredSku: "pro_yearly"), now: d(10),
      expect: Expect(
        state: .active,
        change: ProductChange(fromProductId: "pro_monthly", toProductId: "pro_yearly", kind: .crossgrade))),
  ]

  static let resubscribe: [LifecycleCase] = [
    LifecycleCase(
      name: "new receipt after the old one expired: active",
      history: receipt("receipt-2", [term("receipt-2", to: 80, from: 50)]), now: d(55),
      expect: Expect(state: .active, expiresOn: d(80), entitled: true),
      others: [receipt([term(to: 30)], autoRenewing: false, cancelDate: 30, cancelReason: 1)]),
    LifecycleCase(
      name: "the old receipt stays expired for its own reason",
      history: receipt([term(to: 30)], autoRenewing: false, cancelDate: 30, cancelReason: 1), now: d(55),
      expect: Expect(state: .expired, reason: .customerCanceled),
      others: [receipt("receipt-2", [term("receipt-2", to: 80, from: 50)])]),
  ]

  static let sandbox: [LifecycleCase] = [
    LifecycleCase(
      name: "testTransaction true: sandbox", history: receipt([term(to: 30)], test: true), now: d(1),
      expect: Expect(state: .active, familyShared: false, sandbox: true))
  ]
}

@Suite("Amazon Appstore lifecycle")
struct AmazonLifecycleTests {
  @Test(arguments: AmazonRows.buyRenewOptOutExpire) func buyRenewOptOutExpire(_ row: LifecycleCase) { check(row) }
  @Test(arguments: AmazonRows.trialToPaid) func trialToPaid(_ row: LifecycleCase) { check(row) }
  @Test(arguments: AmazonRows.graceRecovered) func billingFailureGraceRecovered(_ row: LifecycleCase) { check(row) }
  @Test(arguments: AmazonRows.retryExpired) func billingFailureRetryExpired(_ row: LifecycleCase) { check(row) }
  @Test(arguments: AmazonRows.refunds) func refunds(_ row: LifecycleCase) { check(row) }
  @Test(arguments: AmazonRows.productChanges) func upgradeDowngradeCrossgrade(_ row: LifecycleCase) { check(row) }
  @Test(arguments: AmazonRows.resubscribe) func resubscribeAfterExpiry(_ row: LifecycleCase) { check(row) }
  @Test(arguments: AmazonRows.sandbox) func sandbox(_ row: LifecycleCase) { check(row) }
}
