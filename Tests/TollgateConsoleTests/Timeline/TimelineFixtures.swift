import TollgateCore
import TollgateSupport
import TollgateWorker

/// Realistic histories of each store, made into `Timeline`s by `TimelineBuilder` from stored
/// chains and the events the worker writes (as the support desk's tests build them).
enum TimelineFixtures {
  static let day: Int64 = 86_400_000
  /// 2026-11-18 11:06:40 UTC.
  static let start: Int64 = 1_795_000_000_000
  static let now = start + 72 * day

  static func event(
    _ kind: String, user: String? = "alice", _ store: Store, _ purchase: String, at atMs: Int64,
    state: SubscriptionState? = nil, detail: String? = nil, details: EventDetails = EventDetails()
  ) -> WorkerEvent {
    WorkerEvent(
      userId: user, kind: kind, store: store, purchaseId: purchase, productId: nil, state: state, atMs: atMs,
      detail: detail, details: details)
  }

  static func chain(
    _ store: Store, _ purchaseId: String, user: String = "alice", transactions: [StoreTransaction],
    renewal: RenewalInfo? = nil, state: SubscriptionState, reason: String, accessEndsAtMs: Int64,
    linkedPurchaseToken: String? = nil, replacedAtMs: Int64? = nil
  ) -> StoredSubscription {
    var history = SubscriptionHistory(
      store: store, purchaseId: purchaseId, environment: .production, transactions: transactions,
      renewalInfo: renewal, asOfMs: now)
    history.linkedPurchaseToken = linkedPurchaseToken
    history.replacedAtMs = replacedAtMs
    let payloads = transactions.map {
      VerificationEvidence.Payload(
        kind: "transaction", id: $0.transactionId, sha256: "ab12", signedAtMs: $0.purchaseDateMs + 60_000)
    }
    let product = transactions.last?.productId ?? "?"
    return StoredSubscription(
      store: store, purchaseId: purchaseId, appId: "com.example.app", userId: user, history: history,
      evidence: VerificationEvidence(
        source: "store_api", environment: .production, payloads: payloads, verifiedAtMs: now),
      state: state, reason: reason, productId: product, willRenew: state != .expired,
      expiresAtMs: transactions.last?.expiresDateMs ?? now, accessEndsAtMs: accessEndsAtMs, appAccountToken: nil,
      verifiedAtMs: now, nextCheckAtMs: nil)
  }

  static func period(
    _ id: String, _ product: String, from: Int64, days: Int64, trial: Bool = false, refundedAt: Int64? = nil
  ) -> StoreTransaction {
    StoreTransaction(
      transactionId: id, productId: product, purchaseDateMs: from, expiresDateMs: from + days * day,
      offerType: trial ? .introductory : nil, offerDiscountType: trial ? .freeTrial : nil,
      revocationDateMs: refundedAt, revocationReason: refundedAt == nil ? nil : .refunded)
  }

  /// The App Store: a week's free trial, a paid month, an upgrade to pro refunded a week in, then
  /// a grace period and billing retry that still runs; and a refused claim of another purchase.
  static func appStore() -> Timeline {
    let chain = chain(
      .appStore, "2000000001",
      transactions: [
        period("2000000001", "premium.monthly", from: start, days: 7, trial: true),
        period("2000000002", "premium.monthly", from: start + 7 * day, days: 30),
        period("2000000003", "pro.monthly", from: start + 37 * day, days: 30, refundedAt: start + 44 * day),
      ],
      renewal: RenewalInfo(
        willAutoRenew: true, isInBillingRetryPeriod: true, gracePeriodExpiresDateMs: start + 70 * day),
      state: .billingRetry, reason: "billing_retry_period", accessEndsAtMs: start + 70 * day)
    let upgrade = EventProductChange(
      direction: .upgrade, fromProductId: "premium.monthly", toProductId: "pro.monthly", effectiveAtMs: start + 37 * day
    )
    let events = [
      event("purchased", .appStore, "2000000001", at: start, state: .trial),
      event(
        "claim_refused", .appStore, "2000000999", at: start + 20 * day,
        detail: "the purchase's app account token names another user"),
      event(
        "product_changed", .appStore, "2000000001", at: start + 37 * day, details: EventDetails(productChange: upgrade)),
      event("refunded", .appStore, "2000000001", at: start + 44 * day),
      event("grace_started", .appStore, "2000000001", at: start + 67 * day, state: .gracePeriod),
      event("billing_issue", .appStore, "2000000001", at: start + 70 * day, state: .billingRetry),
    ]
    return TimelineBuilder.timeline(userId: "alice", nowMs: now, subscriptions: [chain], events: events, grants: [])
  }

  /// Google Play: a purchase transferred in from bob, replaced by an upgrade to a new token, which
  /// was paused, resumed, and is on account hold now.
  static func googlePlay() -> Timeline {
    let old = chain(
      .googlePlay, "token-old",
      transactions: [
        period("GPA.1111-0000", "premium.monthly", from: start, days: 30),
        period("GPA.1111-0000..1", "premium.monthly", from: start + 30 * day, days: 30),
      ],
      state: .expired, reason: "replaced", accessEndsAtMs: start + 50 * day, replacedAtMs: start + 50 * day)
    let new = chain(
      .googlePlay, "token-new",
      transactions: [
        period("GPA.2222-0000", "pro.monthly", from: start + 50 * day, days: 10),
        period("GPA.2222-0000..1", "pro.monthly", from: start + 64 * day, days: 2),
      ],
      renewal: RenewalInfo(willAutoRenew: true, googlePlayState: .onHold), state: .onHold, reason: "account_hold",
      accessEndsAtMs: start + 66 * day, linkedPurchaseToken: "token-old")
    let upgrade = EventProductChange(
      direction: .upgrade, fromProductId: "premium.monthly", toProductId: "pro.monthly",
      effectiveAtMs: start + 50 * day,
      fromPurchaseId: "token-old")
    let events = [
      event("transferred", .googlePlay, "token-old", at: start + day, detail: "from bob under always_transfer"),
      event(
        "product_changed", .googlePlay, "token-new", at: start + 50 * day, details: EventDetails(productChange: upgrade)
      ),
      event("paused", .googlePlay, "token-new", at: start + 60 * day, state: .paused),
      event("recovered", .googlePlay, "token-new", at: start + 64 * day, state: .active),
      event("billing_issue", .googlePlay, "token-new", at: start + 66 * day, state: .onHold),
    ]
    return TimelineBuilder.timeline(
      userId: "alice", nowMs: now, subscriptions: [old, new], events: events, grants: [])
  }

  /// The Amazon Appstore: a receipt with a trial term, then paid, auto-renew off and expired; a
  /// receipt that moved to bob; and a transfer the policy refused.
  static func amazon() -> Timeline {
    let receipt = chain(
      .amazon, "amzn-r1",
      transactions: [
        period("amzn-r1#trial", "premium.monthly", from: start + 10 * day, days: 7, trial: true),
        period("amzn-r1", "premium.monthly", from: start + 17 * day, days: 30),
      ],
      state: .expired, reason: "expired", accessEndsAtMs: start + 47 * day)
    let events = [
      event("opted_out", .amazon, "amzn-r1", at: start + 30 * day, state: .active),
      event("expired", .amazon, "amzn-r1", at: start + 47 * day, state: .expired),
      event("purchased", .amazon, "amzn-r3", at: start + 2 * day, state: .active),
      event(
        "transfer_refused", .amazon, "amzn-r2", at: start + 55 * day,
        detail: "the purchase stays with its owner under keep_with_owner"),
    ]
    let chainEvents = [
      event(
        "transferred", user: "bob", .amazon, "amzn-r3", at: start + 5 * day, detail: "from alice under always_transfer")
    ]
    return TimelineBuilder.timeline(
      userId: "alice", nowMs: now, subscriptions: [receipt], events: events, chainEvents: chainEvents, grants: [])
  }
}
