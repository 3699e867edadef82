import Testing
import TollgateCore

/// Google Play paths of docs/lifecycle.md. Each row is a purchases.subscriptionsv2 resource of one
/// purchaseToken (orders `GPA.…` and renewals `..N`) as the RTDN named in the row leaves it.
enum GooglePlayRows {
  static func token(
    _ orders: [StoreTransaction], _ renewal: RenewalInfo?, environment: StoreEnvironment = .production
  ) -> SubscriptionHistory {
    token("token-1", orders, renewal, environment: environment)
  }

  static func token(
    _ id: String, _ orders: [StoreTransaction], _ renewal: RenewalInfo?,
    linked: String? = nil, environment: StoreEnvironment = .production
  ) -> SubscriptionHistory {
    SubscriptionHistory(
      store: .googlePlay, purchaseId: id, environment: environment, transactions: orders, renewalInfo: renewal,
      linkedPurchaseToken: linked)
  }

  static func state(
    _ s: GooglePlaySubscriptionState, autoRenew: Bool = true, product: String? = nil, grace: Int64? = nil,
    intent: ExpirationIntent? = nil, resume: Int64? = nil, price: PriceIncreaseStatus? = nil, acknowledged: Bool = true
  ) -> RenewalInfo {
    RenewalInfo(
      willAutoRenew: autoRenew, autoRenewProductId: product, expirationIntent: intent,
      gracePeriodExpiresDateMs: grace.map { d($0) }, priceIncreaseStatus: price, googlePlayState: s,
      autoResumeTimeMs: resume.map { d($0) }, isAcknowledged: acknowledged)
  }

  static let order0 = period("GPA.3301-1111-2222-33333", "pro_monthly", from: 0, to: 30)
  static let order1 = period("GPA.3301-1111-2222-33333..0", "pro_monthly", from: 30, to: 60)

  static let buyRenewOptOutExpire: [LifecycleCase] = [
    LifecycleCase(
      name: "SUBSCRIPTION_PURCHASED (4), SUBSCRIPTION_STATE_ACTIVE", history: token([order0], state(.active)),
      now: d(10), expect: Expect(state: .active, expiresOn: d(30), accessEndsAt: d(31), willRenew: true)),
    LifecycleCase(
      name: "SUBSCRIPTION_RENEWED (2): order ..0 extends expiryTime",
      history: token([order0, order1], state(.active)), now: d(40),
      expect: Expect(state: .active, expiresOn: d(60), entitled: true)),
    LifecycleCase(
      name: "SUBSCRIPTION_CANCELED (3), SUBSCRIPTION_STATE_CANCELED: access until expiryTime",
      history: token([order0, order1], state(.canceled, autoRenew: false, intent: .customerCanceled)), now: d(50),
      expect: Expect(state: .active, expiresOn: d(60), accessEndsAt: d(60), willRenew: false, entitled: true)),
    LifecycleCase(
      name: "SUBSCRIPTION_EXPIRED (13), SUBSCRIPTION_STATE_EXPIRED",
      history: token([order0, order1], state(.expired, autoRenew: false, intent: .customerCanceled)), now: d(61),
      expect: Expect(state: .expired, reason: .customerCanceled, accessEndsAt: d(60), willRenew: false, entitled: false)
    ),
    LifecycleCase(
      name: "SUBSCRIPTION_RESTARTED (7): auto-renew on again before expiry",
      history: token([order0], state(.active)), now: d(20), expect: Expect(state: .active, willRenew: true)),
  ]

  static let trialToPaid: [LifecycleCase] = [
    LifecycleCase(
      name: "offerPhase freeTrial: trial",
      history: token(
        [period("GPA.1", "pro_monthly", from: 0, to: 7, offer: .introductory, discount: .freeTrial)], state(.active)),
      now: d(2), expect: Expect(state: .trial, entitled: true)),
    LifecycleCase(
      name: "offerPhase introductoryPrice: intro offer",
      history: token(
        [period("GPA.1", "pro_monthly", from: 0, to: 30, offer: .introductory, discount: .payAsYouGo)], state(.active)),
      now: d(2), expect: Expect(state: .introOffer)),
    LifecycleCase(
      name: "SUBSCRIPTION_RENEWED after the trial: offerPhase basePrice, active",
      history: token(
        [
          period("GPA.1", "pro_monthly", from: 0, to: 7, offer: .introductory, discount: .freeTrial),
          period("GPA.1..0", "pro_monthly", from: 7, to: 37),
        ], state(.active)), now: d(8), expect: Expect(state: .active, expiresOn: d(37))),
  ]

  static let graceRecovered: [LifecycleCase] = [
    LifecycleCase(
      name: "SUBSCRIPTION_IN_GRACE_PERIOD (6): access continues through the grace period",
      history: token([order0], state(.inGracePeriod, grace: 37)), now: d(33),
      expect: Expect(
        state: .gracePeriod, reason: .billingGracePeriod, accessEndsAt: d(37), willRenew: true, entitled: true,
        gracePeriodEnd: d(37))),
    LifecycleCase(
      name: "SUBSCRIPTION_IN_GRACE_PERIOD with expiryTime moved to the grace end",
      history: token([period("GPA.1", "pro_monthly", from: 0, to: 37)], state(.inGracePeriod, grace: 37)),
      now: d(33), expect: Expect(state: .gracePeriod, accessEndsAt: d(37), entitled: true)),
    LifecycleCase(
      name: "SUBSCRIPTION_RECOVERED (1): new order, active",
      history: token([order0, order1], state(.active)), now: d(33),
      expect: Expect(state: .active, expiresOn: d(60), entitled: true)),
  ]

  static let holdExpired: [LifecycleCase] = [
    LifecycleCase(
      name: "SUBSCRIPTION_ON_HOLD (5): account hold, no access",
      history: token([order0], state(.onHold)), now: d(40),
      expect: Expect(state: .onHold, reason: .accountHold, accessEndsAt: d(30), willRenew: true, entitled: false)),
    LifecycleCase(
      name: "grace period over, hold not reported yet: account hold",
      history: token([order0], state(.inGracePeriod, grace: 37)), now: d(40),
      expect: Expect(state: .onHold, accessEndsAt: d(37), entitled: false)),
    LifecycleCase(
      name: "SUBSCRIPTION_RECOVERED (1) from hold: renewal dated from the recovery",
      history: token([order0, period("GPA.3301-1111-2222-33333..0", "pro_monthly", from: 45, to: 75)], state(.active)),
      now: d(46), expect: Expect(state: .active, expiresOn: d(75))),
    LifecycleCase(
      name: "SUBSCRIPTION_EXPIRED (13) after hold: systemInitiatedCancellation",
      history: token([order0], state(.expired, autoRenew: false, intent: .billingError)), now: d(70),
      expect: Expect(state: .expired, reason: .billingError, willRenew: false, entitled: false)),
  ]

  static let refunds: [LifecycleCase] = [
    LifecycleCase(
      name: "SUBSCRIPTION_REVOKED (12): latest order voided, access ends",
      history: token(
        [
          order0,
          period("GPA.3301-1111-2222-33333..0", "pro_monthly", from: 30, to: 60, revokedOn: 35, reason: .revoked),
        ],
        state(.expired, autoRenew: false)), now: d(35, hours: 1),
      expect: Expect(state: .revoked, reason: .revoked, accessEndsAt: d(30), entitled: false)),
    LifecycleCase(
      name: "voidedPurchaseNotification for an older order: current order untouched",
      history: token(
        [period("GPA.3301-1111-2222-33333", "pro_monthly", from: 0, to: 30, revokedOn: 20), order1], state(.active)),
      now: d(40), expect: Expect(state: .active, expiresOn: d(60), entitled: true)),
  ]

  static let productChanges: [LifecycleCase] = [
    LifecycleCase(
      name: "upgrade: the old token ends when the linked token starts",
      history: token("token-1", [order0], state(.expired, autoRenew: false, intent: .replaced)), now: d(15),
      expect: Expect(state: .expired, reason: .replaced, accessEndsAt: d(10), entitled: false),
      others: [token("token-2", [period("GPA.2", "premium", from: 10, to: 40)], state(.active), linked: "token-1")]),
    LifecycleCase(
      name: "upgrade: linkedPurchaseToken alone ends the old token",
      history: token("token-1", [order0], state(.active)), now: d(15),
      expect: Expect(state: .expired, reason: .replaced, accessEndsAt: d(10)),
      others: [token("token-2", [period("GPA.2", "premium", from: 10, to: 40)], state(.active), linked: "token-1")]),
    LifecycleCase(
      name: "upgrade: the new token is active",
      history: token("token-2", [period("GPA.2", "premium", from: 10, to: 40)], state(.active), linked: "token-1"),
      now: d(15), expect: Expect(state: .active, productId: "premium", entitled: true),
      others: [token("token-1", [order0], state(.expired, autoRenew: false, intent: .replaced))]),
    LifecycleCase(
      name: "downgrade, replacement mode DEFERRED: deferredItemReplacement pending",
      history: token([period("GPA.1", "premium", from: 0, to: 30)], state(.active, product: "pro_monthly")), now: d(10),
      expect: Expect(
        state: .active, productId: "premium",
        change: ProductChange(fromProductId: "premium", toProductId: "pro_monthly", kind: .downgrade))),
    LifecycleCase(
      name: "crossgrade, replacement mode DEFERRED",
      history: token([order0], state(.active, product: "pro_yearly")), now: d(10),
      expect: Expect(
        state: .active,
        change: ProductChange(fromProductId: "pro_monthly", toProductId: "pro_yearly", kind: .crossgrade))),
  ]

  static let resubscribe: [LifecycleCase] = [
    LifecycleCase(
      name: "new purchase token after expiry (no linkedPurchaseToken): active",
      history: token("token-2", [period("GPA.2", "pro_monthly", from: 50, to: 80)], state(.active)), now: d(55),
      expect: Expect(state: .active, expiresOn: d(80), entitled: true),
      others: [token("token-1", [order0], state(.expired, autoRenew: false))]),
    LifecycleCase(
      name: "the expired token stays expired",
      history: token("token-1", [order0], state(.expired, autoRenew: false)), now: d(55),
      expect: Expect(state: .expired, reason: .lapsed, entitled: false),
      others: [token("token-2", [period("GPA.2", "pro_monthly", from: 50, to: 80)], state(.active))]),
  ]

  static let pauseResume: [LifecycleCase] = [
    LifecycleCase(
      name: "SUBSCRIPTION_PAUSE_SCHEDULE_CHANGED (11): still active until the period ends",
      history: token([order0], state(.active)), now: d(20), expect: Expect(state: .active, entitled: true)),
    LifecycleCase(
      name: "SUBSCRIPTION_PAUSED (10): no access until autoResumeTime",
      history: token([order0], state(.paused, resume: 60)), now: d(40),
      expect: Expect(
        state: .paused, reason: .paused, accessEndsAt: d(30), willRenew: true, entitled: false, pausedUntil: d(60))),
    LifecycleCase(
      name: "SUBSCRIPTION_RECOVERED (1) on resume: new order, active",
      history: token([order0, period("GPA.3301-1111-2222-33333..0", "pro_monthly", from: 60, to: 90)], state(.active)),
      now: d(61), expect: Expect(state: .active, expiresOn: d(90), entitled: true)),
  ]

  static let flags: [LifecycleCase] = [
    LifecycleCase(
      name: "testPurchase set: sandbox", history: token([order0], state(.active), environment: .sandbox), now: d(1),
      expect: Expect(state: .active, familyShared: false, sandbox: true)),
    LifecycleCase(
      name: "ACKNOWLEDGEMENT_STATE_PENDING", history: token([order0], state(.active, acknowledged: false)), now: d(1),
      expect: Expect(state: .active, acknowledgementPending: true)),
    LifecycleCase(
      name: "priceChangeState OUTSTANDING", history: token([order0], state(.active, price: .pending)), now: d(1),
      expect: Expect(state: .active, priceConsentPending: true)),
  ]
}

@Suite("Google Play lifecycle")
struct GooglePlayLifecycleTests {
  @Test(arguments: GooglePlayRows.buyRenewOptOutExpire) func buyRenewOptOutExpire(_ row: LifecycleCase) { check(row) }
  @Test(arguments: GooglePlayRows.trialToPaid) func trialToPaid(_ row: LifecycleCase) { check(row) }
  @Test(arguments: GooglePlayRows.graceRecovered) func billingFailureGraceRecovered(_ row: LifecycleCase) { check(row) }
  @Test(arguments: GooglePlayRows.holdExpired) func billingFailureHoldExpired(_ row: LifecycleCase) { check(row) }
  @Test(arguments: GooglePlayRows.refunds) func refunds(_ row: LifecycleCase) { check(row) }
  @Test(arguments: GooglePlayRows.productChanges) func upgradeDowngradeCrossgrade(_ row: LifecycleCase) { check(row) }
  @Test(arguments: GooglePlayRows.resubscribe) func resubscribeAfterExpiry(_ row: LifecycleCase) { check(row) }
  @Test(arguments: GooglePlayRows.pauseResume) func pauseAndResume(_ row: LifecycleCase) { check(row) }
  @Test(arguments: GooglePlayRows.flags) func sandboxAndFlags(_ row: LifecycleCase) { check(row) }
}
