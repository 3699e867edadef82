import Testing
import TollgateCore
import TollgateSupport
import TollgateWorker

@Suite("TimelineBuilder: a user's periods, trouble, transfers and grants in one sorted list")
struct TimelineBuilderTests {
  static let day: Int64 = 86_400_000
  static let start: Int64 = 1_795_000_000_000

  /// An App Store chain: a free trial, a paid month, then a month of another product that was
  /// refunded; in grace now, each transaction signed a minute after it started.
  static func appleChain() -> StoredSubscription {
    let transactions = [
      StoreTransaction(
        transactionId: "1001", productId: "premium.monthly", purchaseDateMs: start, expiresDateMs: start + 7 * day,
        offerType: .introductory, offerDiscountType: .freeTrial),
      StoreTransaction(
        transactionId: "1002", productId: "premium.monthly", purchaseDateMs: start + 7 * day,
        expiresDateMs: start + 37 * day),
      StoreTransaction(
        transactionId: "1003", productId: "basic.monthly", purchaseDateMs: start + 37 * day,
        expiresDateMs: start + 67 * day, revocationDateMs: start + 40 * day, revocationReason: .refunded),
    ]
    let history = SubscriptionHistory(
      store: .appStore, purchaseId: "1001", environment: .sandbox, transactions: transactions,
      renewalInfo: RenewalInfo(
        willAutoRenew: true, isInBillingRetryPeriod: true, gracePeriodExpiresDateMs: start + 70 * day),
      asOfMs: start + 68 * day)
    let payloads = transactions.map {
      VerificationEvidence.Payload(
        kind: "transaction", id: $0.transactionId, sha256: "00", signedAtMs: $0.purchaseDateMs + 60_000)
    }
    return StoredSubscription(
      store: .appStore, purchaseId: "1001", appId: "com.example.app", userId: "alice", history: history,
      evidence: VerificationEvidence(
        source: "app_store_server_api", environment: .sandbox, payloads: payloads, verifiedAtMs: start + 68 * day),
      state: .gracePeriod, reason: "billing_grace_period", productId: "basic.monthly", willRenew: true,
      expiresAtMs: start + 67 * day, accessEndsAtMs: start + 70 * day, appAccountToken: nil,
      verifiedAtMs: start + 68 * day, nextCheckAtMs: nil)
  }

  static func event(
    _ kind: String, user: String?, store: Store = .appStore, purchase: String = "1001", at atMs: Int64,
    state: SubscriptionState? = nil, detail: String? = nil, details: EventDetails = EventDetails()
  ) -> WorkerEvent {
    WorkerEvent(
      userId: user, kind: kind, store: store, purchaseId: purchase, productId: "basic.monthly", state: state,
      atMs: atMs, detail: detail, details: details)
  }

  @Test("trial → period → product change → refund, grace and billing retry, a transfer away and a grant, in order")
  func wholeStory() {
    let now = Self.start + 68 * Self.day
    let events = [
      Self.event("purchased", user: "alice", at: Self.start),
      Self.event("grace_started", user: "alice", at: Self.start + 67 * Self.day, state: .gracePeriod),
      Self.event("billing_issue", user: "alice", at: Self.start + 67 * Self.day + 1, state: .billingRetry),
      Self.event("renewed", user: "alice", store: .googlePlay, purchase: "token-1", at: Self.start + 2 * Self.day),
      Self.event(
        "granted", user: "alice", store: .promotional, purchase: "7", at: Self.start + 50 * Self.day,
        details: EventDetails(
          grant: EventGrant(
            entitlement: "premium", expiresAtMs: Self.start + 80 * Self.day, note: "outage credit",
            actor: "ops for jane"))),
    ]
    // Bob's events of the Google chain alice held: it moved to him; his renewal stays his.
    let chainEvents = [
      Self.event(
        "transferred", user: "bob", store: .googlePlay, purchase: "token-1", at: Self.start + 3 * Self.day,
        detail: "from alice under always_transfer"),
      Self.event("renewed", user: "bob", store: .googlePlay, purchase: "token-1", at: Self.start + 33 * Self.day),
    ]
    let grant = PromotionalGrant(
      grantId: "7", userId: "alice", entitlement: "premium", grantedAtMs: Self.start + 50 * Self.day,
      expiresAtMs: Self.start + 80 * Self.day, note: "outage credit")
    let timeline = TimelineBuilder.timeline(
      userId: "alice", nowMs: now, subscriptions: [Self.appleChain()], events: events, chainEvents: chainEvents,
      grants: [grant])

    #expect(timeline.userId == "alice")
    #expect(timeline.evaluatedAtMs == now)
    #expect(
      timeline.entries.map(\.kind) == [
        .trial, .transferredOut, .period, .productChanged, .period, .refunded, .granted, .grant, .graceStarted,
        .billingIssue, .now,
      ])
    #expect(timeline.entries.map(\.atMs) == timeline.entries.map(\.atMs).sorted())
    let trial = timeline.entries[0]
    #expect(trial.transactionId == "1001")
    #expect(trial.untilMs == Self.start + 7 * Self.day)
    #expect(trial.signedAtMs == Self.start + 60_000, "signed_at from the evidence payload of that transaction")
    let refund = timeline.entries[5]
    #expect(refund.atMs == Self.start + 40 * Self.day)
    #expect(refund.transactionId == "1003")
    #expect(refund.detail == "refunded")
    #expect(refund.signedAtMs == Self.start + 37 * Self.day + 60_000)
    #expect(timeline.entries[3].detail == "from premium.monthly")
    #expect(timeline.entries[3].productId == "basic.monthly")
    let away = timeline.entries[1]
    #expect(away.store == .googlePlay)
    #expect(away.detail == "to bob (from alice under always_transfer)")
    let granted = timeline.entries[6]
    #expect(granted.productId == "premium")
    #expect(granted.detail == "by ops for jane: outage credit")
    #expect(granted.untilMs == Self.start + 80 * Self.day)
    #expect(timeline.entries[7].source == .grant)
    #expect(timeline.entries[7].state == .active)
    let current = timeline.entries[10]
    #expect(current.state == .gracePeriod)
    #expect(current.untilMs == Self.start + 70 * Self.day)
    #expect(current.detail?.contains("grace period until \(ISO8601Text.text(ms: Self.start + 70 * Self.day))") == true)
    #expect(current.detail?.contains("in billing retry") == true)
    #expect(current.signedAtMs == Self.start + 37 * Self.day + 60_000)
  }

  @Test("a Google chain on hold reads on_hold; a lifetime purchase has no end; a withdrawn grant says when")
  func holdsLifetimesAndWithdrawals() {
    let now = Self.start + 10 * Self.day
    var lifetime = Self.appleChain()
    lifetime.purchaseId = "2001"
    lifetime.history = SubscriptionHistory(
      store: .appStore, purchaseId: "2001",
      transactions: [
        StoreTransaction(
          transactionId: "2001", productId: "lifetime", purchaseDateMs: Self.start, expiresDateMs: Int64.max)
      ])
    lifetime.accessEndsAtMs = Int64.max
    let hold = Self.event(
      "billing_issue", user: "alice", store: .googlePlay, purchase: "token-2", at: Self.start + Self.day,
      state: .onHold)
    let grant = PromotionalGrant(
      grantId: "9", userId: "alice", entitlement: "premium", grantedAtMs: Self.start,
      expiresAtMs: Self.start + 30 * Self.day, revokedAtMs: Self.start + 2 * Self.day, note: "mistake")
    let timeline = TimelineBuilder.timeline(
      userId: "alice", nowMs: now, subscriptions: [lifetime], events: [hold], grants: [grant])
    #expect(timeline.entries.map(\.kind) == [.period, .grant, .onHold, .now])
    #expect(timeline.entries[0].untilMs == nil)
    #expect(timeline.entries[3].untilMs == nil)
    #expect(timeline.entries[1].untilMs == Self.start + 2 * Self.day)
    #expect(timeline.entries[1].state == .revoked)
    #expect(timeline.entries[1].detail == "withdrawn at \(ISO8601Text.text(ms: Self.start + 2 * Self.day)): mistake")
  }

  @Test("a chain another purchase replaced says which, at the time it was replaced")
  func replacements() {
    var old = Self.appleChain()
    old.store = .googlePlay
    old.purchaseId = "token-old"
    old.history.store = .googlePlay
    old.history.purchaseId = "token-old"
    old.history.replacedAtMs = Self.start + 20 * Self.day
    var new = Self.appleChain()
    new.store = .googlePlay
    new.purchaseId = "token-new"
    new.history.purchaseId = "token-new"
    new.history.linkedPurchaseToken = "token-old"
    let timeline = TimelineBuilder.timeline(
      userId: "alice", nowMs: Self.start + 68 * Self.day, subscriptions: [old, new], events: [], grants: [])
    let replaced = timeline.entries.filter { $0.kind == .replacedBy }
    #expect(replaced.count == 1)
    #expect(replaced.first?.purchaseId == "token-old")
    #expect(replaced.first?.atMs == Self.start + 20 * Self.day)
    #expect(replaced.first?.detail == "replaced by token-new (basic.monthly)")
  }
}
