import Testing
import TollgateCore

@Suite("Store vocabulary")
struct StoreVocabularyTests {
  @Test(arguments: [
    ("GPA.1234-5678-9012-34567", "GPA.1234-5678-9012-34567", nil as Int?, 0),
    ("GPA.1234-5678-9012-34567..0", "GPA.1234-5678-9012-34567", 0, 1),
    ("GPA.1234-5678-9012-34567..12", "GPA.1234-5678-9012-34567", 12, 13),
    ("GPA.1234-5678-9012-34567..x", "GPA.1234-5678-9012-34567..x", nil, 0),
  ])
  func googlePlayOrderIdSuffix(orderId: String, base: String, renewal: Int?, sequence: Int) {
    let parsed = GooglePlayOrderId(orderId)
    #expect(parsed.baseOrderId == base)
    #expect(parsed.renewalIndex == renewal)
    #expect(parsed.sequenceNumber == sequence)
    #expect(parsed.orderId == orderId)
  }

  // developer.apple.com/documentation/appstoreservernotifications/notificationtype, …/subtype
  @Test(arguments: [
    ("SUBSCRIBED", "INITIAL_BUY" as String?, StoreEventKind.purchased),
    ("SUBSCRIBED", "RESUBSCRIBE", .resubscribed),
    ("DID_RENEW", nil, .renewed),
    ("DID_RENEW", "BILLING_RECOVERY", .recovered),
    ("DID_FAIL_TO_RENEW", "GRACE_PERIOD", .gracePeriodStarted),
    ("DID_FAIL_TO_RENEW", nil, .renewalFailed),
    ("GRACE_PERIOD_EXPIRED", nil, .gracePeriodExpired),
    ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", .autoRenewDisabled),
    ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED", .autoRenewEnabled),
    ("DID_CHANGE_RENEWAL_PREF", "UPGRADE", .productChanged),
    ("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE", .productChangeScheduled),
    ("DID_CHANGE_RENEWAL_PREF", nil, .productChangeCanceled),
    ("EXPIRED", "VOLUNTARY", .expired),
    ("EXPIRED", "BILLING_RETRY", .expired),
    ("REFUND", nil, .refunded),
    ("REFUND_REVERSED", nil, .refundReversed),
    ("REVOKE", nil, .revoked),
    ("PRICE_INCREASE", "PENDING", .priceIncrease),
    ("RENEWAL_EXTENDED", nil, .renewalExtended),
    ("TEST", nil, .informational),
  ])
  func appStoreNotificationTypes(type: String, subtype: String?, kind: StoreEventKind) {
    #expect(StoreEventKind(appStoreNotificationType: type, subtype: subtype) == kind)
  }

  @Test func unknownAppStoreTypeIsNil() {
    #expect(StoreEventKind(appStoreNotificationType: "SOMETHING_NEW", subtype: nil) == nil)
  }

  // developer.android.com/google/play/billing/rtdn-reference
  @Test(arguments: [
    (1, StoreEventKind.recovered), (2, .renewed), (3, .autoRenewDisabled), (4, .purchased), (5, .onHold),
    (6, .gracePeriodStarted), (7, .autoRenewEnabled), (9, .renewalExtended), (10, .paused),
    (11, .pauseScheduleChanged), (12, .revoked), (13, .expired), (20, .expired),
  ])
  func googlePlayNotificationTypes(code: Int, kind: StoreEventKind) {
    #expect(StoreEventKind(googlePlayNotificationType: code) == kind)
  }

  @Test func undocumentedGoogleCodesAreNil() {
    #expect(StoreEventKind(googlePlayNotificationType: 0) == nil)
    #expect(StoreEventKind(googlePlayNotificationType: 14) == nil)
  }

  // Apple expirationIntent 1–5; Amazon RVS cancelReason null/0/1/2/4.
  @Test func expirationIntents() {
    #expect(ExpirationIntent(appStoreExpirationIntent: 1) == .customerCanceled)
    #expect(ExpirationIntent(appStoreExpirationIntent: 2) == .billingError)
    #expect(ExpirationIntent(appStoreExpirationIntent: 3) == .priceIncreaseDeclined)
    #expect(ExpirationIntent(appStoreExpirationIntent: 4) == .productUnavailable)
    #expect(ExpirationIntent(appStoreExpirationIntent: 5) == .other)
    #expect(ExpirationIntent(appStoreExpirationIntent: 6) == nil)
    #expect(ExpirationIntent(amazonCancelReason: 0) == .other)
    #expect(ExpirationIntent(amazonCancelReason: 1) == .customerCanceled)
    #expect(ExpirationIntent(amazonCancelReason: 2) == .billingError)
    #expect(ExpirationIntent(amazonCancelReason: 4) == .replaced)
    #expect(ExpirationIntent(amazonCancelReason: 9) == nil)
  }

  @Test func googlePlayStateStrings() {
    #expect(GooglePlaySubscriptionState(rawValue: "SUBSCRIPTION_STATE_IN_GRACE_PERIOD") == .inGracePeriod)
    #expect(GooglePlaySubscriptionState(rawValue: "SUBSCRIPTION_STATE_ON_HOLD") == .onHold)
    #expect(GooglePlaySubscriptionState(rawValue: "SUBSCRIPTION_STATE_PAUSED") == .paused)
    #expect(GooglePlaySubscriptionState(rawValue: "SUBSCRIPTION_STATE_CANCELED") == .canceled)
    #expect(GooglePlaySubscriptionState(rawValue: "SUBSCRIPTION_STATE_EXPIRED") == .expired)
  }

  @Test func eventsBuildAHistory() throws {
    let events = [
      StoreEvent(
        eventId: "n2", store: .appStore, purchaseId: "100", kind: .renewed, occurredAtMs: d(30),
        transactions: [period("t2", "pro_monthly", from: 30, to: 60)],
        renewalInfo: RenewalInfo(willAutoRenew: true)),
      StoreEvent(
        eventId: "n1", store: .appStore, purchaseId: "100", kind: .purchased, occurredAtMs: d(0),
        transactions: [period("t1", "pro_monthly", from: 0, to: 30)],
        renewalInfo: RenewalInfo(willAutoRenew: false)),
      StoreEvent(
        eventId: "n3", store: .appStore, purchaseId: "100", kind: .refunded, occurredAtMs: d(35),
        transactions: [period("t2", "pro_monthly", from: 30, to: 60, revokedOn: 35)]),
      StoreEvent(eventId: "other", store: .appStore, purchaseId: "999", kind: .purchased, occurredAtMs: d(40)),
    ]
    let history = try #require(SubscriptionHistory(events: events))
    #expect(history.purchaseId == "100")
    #expect(history.transactions.map(\.transactionId) == ["t1", "t2"])
    #expect(history.transactions[1].isRevoked)
    #expect(history.renewalInfo?.willAutoRenew == true)
    #expect(history.asOfMs == d(35))
  }
}
