import Testing
import TollgateCore

/// App Store paths of docs/lifecycle.md. Each row is a JWSTransaction chain of one
/// originalTransactionId plus the JWSRenewalInfo as the notification named in the row leaves it.
enum AppStoreRows {
  static func chain(
    _ transactions: [StoreTransaction], _ renewal: RenewalInfo?, environment: StoreEnvironment = .production
  ) -> SubscriptionHistory {
    SubscriptionHistory(
      store: .appStore, purchaseId: "2000000000000001", environment: environment, transactions: transactions,
      renewalInfo: renewal)
  }

  static let renewing = RenewalInfo(willAutoRenew: true, autoRenewProductId: "pro_monthly")
  static let first = period("t1", "pro_monthly", from: 0, to: 30)
  static let second = period("t2", "pro_monthly", from: 30, to: 60)

  static let buyRenewOptOutExpire: [LifecycleCase] = [
    LifecycleCase(
      name: "SUBSCRIBED/INITIAL_BUY: active, renews, access runs to expiresDate + leeway",
      history: chain([first], renewing), now: d(10),
      expect: Expect(state: .active, reason: .currentPeriod, expiresOn: d(30), accessEndsAt: d(31), willRenew: true)),
    LifecycleCase(
      name: "DID_RENEW: the new transaction extends expiresDate",
      history: chain([first, second], renewing), now: d(40),
      expect: Expect(state: .active, expiresOn: d(60), accessEndsAt: d(61), willRenew: true)),
    LifecycleCase(
      name: "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED: active to the end of the period, no leeway",
      history: chain([first, second], RenewalInfo(willAutoRenew: false, autoRenewProductId: "pro_monthly")),
      now: d(50), expect: Expect(state: .active, expiresOn: d(60), accessEndsAt: d(60), willRenew: false)),
    LifecycleCase(
      name: "EXPIRED/VOLUNTARY: expirationIntent 1",
      history: chain(
        [first, second], RenewalInfo(willAutoRenew: false, expirationIntent: .init(appStoreExpirationIntent: 1))),
      now: d(61),
      expect: Expect(
        state: .expired, reason: .customerCanceled, expiresOn: d(60), accessEndsAt: d(60), willRenew: false,
        entitled: false)),
    LifecycleCase(
      name: "renewal not seen yet: access kept through the renewal leeway",
      history: chain([first], renewing), now: d(30, hours: 12),
      expect: Expect(state: .active, reason: .renewalPending, accessEndsAt: d(31), entitled: true)),
    LifecycleCase(
      name: "renewal never seen: expired once the leeway is over",
      history: chain([first], renewing), now: d(32),
      expect: Expect(state: .expired, reason: .lapsed, accessEndsAt: d(30), entitled: false)),
    LifecycleCase(
      name: "no leeway configured: access ends at expiresDate",
      history: chain([first], renewing), now: d(10),
      expect: Expect(state: .active, accessEndsAt: d(30)), policy: GracePolicy(renewalLeewayMs: 0)),
  ]

  static let trialToPaid: [LifecycleCase] = [
    LifecycleCase(
      name: "offerType 1 + FREE_TRIAL: trial",
      history: chain(
        [period("t1", "pro_monthly", from: 0, to: 7, offer: .introductory, discount: .freeTrial)], renewing),
      now: d(3), expect: Expect(state: .trial, expiresOn: d(7), willRenew: true, entitled: true)),
    LifecycleCase(
      name: "DID_RENEW after the trial: active at the regular price",
      history: chain(
        [
          period("t1", "pro_monthly", from: 0, to: 7, offer: .introductory, discount: .freeTrial),
          period("t2", "pro_monthly", from: 7, to: 37),
        ], renewing), now: d(10), expect: Expect(state: .active, expiresOn: d(37))),
    LifecycleCase(
      name: "offerType 1 + PAY_AS_YOU_GO: intro offer",
      history: chain(
        [period("t1", "pro_monthly", from: 0, to: 30, offer: .introductory, discount: .payAsYouGo)], renewing),
      now: d(3), expect: Expect(state: .introOffer, entitled: true)),
    LifecycleCase(
      name: "offerType 2 (promotional offer, pay up front): active",
      history: chain(
        [period("t1", "pro_monthly", from: 0, to: 30, offer: .promotional, discount: .payUpFront)], renewing),
      now: d(3), expect: Expect(state: .active)),
  ]

  static let graceRecovered: [LifecycleCase] = [
    LifecycleCase(
      name: "DID_FAIL_TO_RENEW/GRACE_PERIOD: service continues until gracePeriodExpiresDate",
      history: chain(
        [first],
        RenewalInfo(
          willAutoRenew: true, expirationIntent: .billingError, isInBillingRetryPeriod: true,
          gracePeriodExpiresDateMs: d(46))), now: d(35),
      expect: Expect(
        state: .gracePeriod, reason: .billingGracePeriod, expiresOn: d(30), accessEndsAt: d(46), willRenew: true,
        entitled: true, gracePeriodEnd: d(46))),
    LifecycleCase(
      name: "grace period off by policy: billing retry, no access",
      history: chain(
        [first],
        RenewalInfo(willAutoRenew: true, isInBillingRetryPeriod: true, gracePeriodExpiresDateMs: d(46))),
      now: d(35), expect: Expect(state: .billingRetry, accessEndsAt: d(30), entitled: false),
      policy: GracePolicy(honorStoreGracePeriod: false)),
    LifecycleCase(
      name: "DID_RENEW/BILLING_RECOVERY: active again",
      history: chain([first, period("t2", "pro_monthly", from: 30, to: 60)], renewing), now: d(40),
      expect: Expect(state: .active, expiresOn: d(60), entitled: true)),
  ]

  static let retryExpired: [LifecycleCase] = [
    LifecycleCase(
      name: "DID_FAIL_TO_RENEW without subtype: billing retry, stop service",
      history: chain(
        [first], RenewalInfo(willAutoRenew: true, expirationIntent: .billingError, isInBillingRetryPeriod: true)),
      now: d(40),
      expect: Expect(state: .billingRetry, reason: .billingRetry, accessEndsAt: d(30), willRenew: true, entitled: false)
    ),
    LifecycleCase(
      name: "GRACE_PERIOD_EXPIRED: still retrying, no service; access ended with the grace period",
      history: chain(
        [first],
        RenewalInfo(
          willAutoRenew: true, expirationIntent: .billingError, isInBillingRetryPeriod: true,
          gracePeriodExpiresDateMs: d(46))), now: d(50),
      expect: Expect(state: .billingRetry, accessEndsAt: d(46), entitled: false)),
    LifecycleCase(
      name: "EXPIRED/BILLING_RETRY: retry period over, expirationIntent 2",
      history: chain([first], RenewalInfo(willAutoRenew: false, expirationIntent: .init(appStoreExpirationIntent: 2))),
      now: d(91), expect: Expect(state: .expired, reason: .billingError, willRenew: false, entitled: false)),
    LifecycleCase(
      name: "EXPIRED/PRICE_INCREASE: expirationIntent 3",
      history: chain([first], RenewalInfo(willAutoRenew: false, expirationIntent: .init(appStoreExpirationIntent: 3))),
      now: d(31), expect: Expect(state: .expired, reason: .priceIncreaseDeclined)),
    LifecycleCase(
      name: "EXPIRED/PRODUCT_NOT_FOR_SALE: expirationIntent 4",
      history: chain([first], RenewalInfo(willAutoRenew: false, expirationIntent: .init(appStoreExpirationIntent: 4))),
      now: d(31), expect: Expect(state: .expired, reason: .productUnavailable)),
  ]

  static let refunds: [LifecycleCase] = [
    LifecycleCase(
      name: "REFUND of the latest renewal: revoked, access as if it was never bought",
      history: chain([first, period("t2", "pro_monthly", from: 30, to: 60, revokedOn: 35)], renewing), now: d(40),
      expect: Expect(
        state: .revoked, reason: .refunded, expiresOn: d(30), accessEndsAt: d(30), willRenew: false, entitled: false)),
    LifecycleCase(
      name: "REFUND of an older renewal: the current period is untouched",
      history: chain([period("t1", "pro_monthly", from: 0, to: 30, revokedOn: 20), second], renewing), now: d(40),
      expect: Expect(state: .active, expiresOn: d(60), entitled: true)),
    LifecycleCase(
      name: "REFUND of the only transaction: revoked from revocationDate",
      history: chain([period("t1", "pro_monthly", from: 0, to: 30, revokedOn: 10)], renewing), now: d(12),
      expect: Expect(state: .revoked, reason: .refunded, accessEndsAt: d(10), entitled: false)),
    LifecycleCase(
      name: "REFUND_REVERSED: the transaction without revocationDate grants access again",
      history: chain([first, second], renewing), now: d(40), expect: Expect(state: .active, entitled: true)),
  ]

  static let productChanges: [LifecycleCase] = [
    LifecycleCase(
      name: "DID_CHANGE_RENEWAL_PREF/UPGRADE: the upgraded transaction ends when the new one starts",
      history: chain(
        [
          period("t1", "pro_monthly", from: 0, to: 30, upgraded: true),
          period("t2", "premium", from: 10, to: 40),
        ], RenewalInfo(willAutoRenew: true, autoRenewProductId: "premium")), now: d(15),
      expect: Expect(state: .active, productId: "premium", expiresOn: d(40), entitled: true)),
    LifecycleCase(
      name: "before the upgrade the old product is current",
      history: chain(
        [
          period("t1", "pro_monthly", from: 0, to: 30, upgraded: true),
          period("t2", "premium", from: 10, to: 40),
        ], RenewalInfo(willAutoRenew: true, autoRenewProductId: "premium")), now: d(5),
      expect: Expect(state: .active, productId: "pro_monthly")),
    LifecycleCase(
      name: "DID_CHANGE_RENEWAL_PREF/DOWNGRADE: effective at the next renewal",
      history: chain(
        [period("t1", "premium", from: 0, to: 30)], RenewalInfo(willAutoRenew: true, autoRenewProductId: "pro_monthly")),
      now: d(10),
      expect: Expect(
        state: .active, productId: "premium",
        change: ProductChange(fromProductId: "premium", toProductId: "pro_monthly", kind: .downgrade))),
    LifecycleCase(
      name: "downgrade renewed: the lower product is current, nothing pending",
      history: chain(
        [period("t1", "premium", from: 0, to: 30), period("t2", "pro_monthly", from: 30, to: 60)],
        RenewalInfo(willAutoRenew: true, autoRenewProductId: "pro_monthly")), now: d(40),
      expect: Expect(state: .active, productId: "pro_monthly")),
    LifecycleCase(
      name: "crossgrade to another duration: at the next renewal",
      history: chain([first], RenewalInfo(willAutoRenew: true, autoRenewProductId: "pro_yearly")), now: d(10),
      expect: Expect(
        state: .active,
        change: ProductChange(fromProductId: "pro_monthly", toProductId: "pro_yearly", kind: .crossgrade))),
  ]

  static let resubscribe: [LifecycleCase] = [
    LifecycleCase(
      name: "expired before resubscribing",
      history: chain([first], RenewalInfo(willAutoRenew: false, expirationIntent: .customerCanceled)), now: d(45),
      expect: Expect(state: .expired, entitled: false)),
    LifecycleCase(
      name: "SUBSCRIBED/RESUBSCRIBE: same originalTransactionId, active again",
      history: chain([first, period("t2", "pro_monthly", from: 50, to: 80)], renewing), now: d(55),
      expect: Expect(state: .active, expiresOn: d(80), willRenew: true, entitled: true)),
  ]

  static let familyAndSandbox: [LifecycleCase] = [
    LifecycleCase(
      name: "inAppOwnershipType FAMILY_SHARED: active, family shared",
      history: chain([period("t1", "pro_monthly", from: 0, to: 30, ownership: .familyShared)], renewing), now: d(10),
      expect: Expect(state: .active, entitled: true, familyShared: true)),
    LifecycleCase(
      name: "REVOKE: family sharing stopped",
      history: chain(
        [
          period(
            "t1", "pro_monthly", from: 0, to: 30, revokedOn: 12, reason: .familySharingRevoked, ownership: .familyShared
          )
        ], renewing), now: d(13),
      expect: Expect(
        state: .revoked, reason: .familySharingRevoked, accessEndsAt: d(12), entitled: false, familyShared: true)),
    LifecycleCase(
      name: "environment Sandbox",
      history: chain([first], renewing, environment: .sandbox), now: d(10),
      expect: Expect(state: .active, familyShared: false, sandbox: true)),
    LifecycleCase(
      name: "PRICE_INCREASE/PENDING: priceIncreaseStatus 0",
      history: chain([first], RenewalInfo(willAutoRenew: true, priceIncreaseStatus: .pending)), now: d(10),
      expect: Expect(state: .active, priceConsentPending: true)),
    LifecycleCase(
      name: "PRICE_INCREASE/ACCEPTED: priceIncreaseStatus 1",
      history: chain([first], RenewalInfo(willAutoRenew: true, priceIncreaseStatus: .agreed)), now: d(10),
      expect: Expect(state: .active, priceConsentPending: false)),
  ]
}

@Suite("App Store lifecycle")
struct AppStoreLifecycleTests {
  @Test(arguments: AppStoreRows.buyRenewOptOutExpire) func buyRenewOptOutExpire(_ row: LifecycleCase) { check(row) }
  @Test(arguments: AppStoreRows.trialToPaid) func trialToPaid(_ row: LifecycleCase) { check(row) }
  @Test(arguments: AppStoreRows.graceRecovered) func billingFailureGraceRecovered(_ row: LifecycleCase) { check(row) }
  @Test(arguments: AppStoreRows.retryExpired) func billingFailureRetryExpired(_ row: LifecycleCase) { check(row) }
  @Test(arguments: AppStoreRows.refunds) func refunds(_ row: LifecycleCase) { check(row) }
  @Test(arguments: AppStoreRows.productChanges) func upgradeDowngradeCrossgrade(_ row: LifecycleCase) { check(row) }
  @Test(arguments: AppStoreRows.resubscribe) func resubscribeAfterExpiry(_ row: LifecycleCase) { check(row) }
  @Test(arguments: AppStoreRows.familyAndSandbox) func familySharingSandboxPrice(_ row: LifecycleCase) { check(row) }
}
