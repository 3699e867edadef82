import Testing
import TollgateCore

@testable import TollgateWorker

@Suite("Events and schedule")
struct EventDeriverTests {
  func evaluation(
    _ state: SubscriptionState, product: String = "monthly", expires: Int64, willRenew: Bool = true,
    reason: StateReason = .currentPeriod
  )
    -> SubscriptionEvaluation
  {
    var history = SubscriptionHistory(
      store: .appStore, purchaseId: "otx", environment: .sandbox,
      transactions: [
        StoreTransaction(transactionId: "t", productId: product, purchaseDateMs: 0, expiresDateMs: expires)
      ],
      renewalInfo: RenewalInfo(willAutoRenew: willRenew), asOfMs: 0)
    history.asOfMs = 0
    var value = SubscriptionLifecycle.evaluate(history, at: 1)
    value.state = state
    value.productId = product
    value.expiresAtMs = expires
    value.accessEndsAtMs = expires
    value.willRenew = willRenew
    value.reason = reason
    return value
  }

  func previous(_ state: SubscriptionState, product: String = "monthly", expires: Int64, willRenew: Bool = true)
    -> StoredSubscription
  {
    let e = evaluation(state, product: product, expires: expires, willRenew: willRenew)
    return StoredSubscription(
      store: .appStore, purchaseId: "otx", appId: "a", userId: "u",
      history: SubscriptionHistory(
        store: .appStore, purchaseId: "otx", environment: .sandbox, transactions: [], renewalInfo: nil, asOfMs: 0),
      evidence: VerificationEvidence(source: "t", environment: .sandbox, payloads: [], verifiedAtMs: 0), state: e.state,
      reason: "x", productId: product, willRenew: willRenew, expiresAtMs: expires, accessEndsAtMs: expires,
      appAccountToken: nil, verifiedAtMs: 0, nextCheckAtMs: nil)
  }

  func kinds(_ previous: StoredSubscription?, _ now: SubscriptionEvaluation) -> [String] {
    EventDeriver().events(
      previous: previous, now: now,
      history: SubscriptionHistory(store: .appStore, purchaseId: "otx", transactions: []), userId: "u", atMs: 5
    ).map(\.kind)
  }

  @Test("each transition names its event")
  func transitions() {
    #expect(kinds(nil, evaluation(.active, expires: 30)) == ["purchased"])
    #expect(kinds(nil, evaluation(.trial, expires: 7)) == ["purchased"])
    #expect(kinds(previous(.active, expires: 30), evaluation(.active, expires: 60)) == ["renewed"])
    #expect(kinds(previous(.trial, expires: 7), evaluation(.active, expires: 37)) == ["trial_converted"])
    #expect(kinds(previous(.active, expires: 30), evaluation(.active, expires: 30, willRenew: false)) == ["opted_out"])
    #expect(kinds(previous(.active, expires: 30, willRenew: false), evaluation(.active, expires: 30)) == ["opted_in"])
    #expect(kinds(previous(.active, expires: 30), evaluation(.gracePeriod, expires: 30)) == ["grace_started"])
    #expect(kinds(previous(.gracePeriod, expires: 30), evaluation(.billingRetry, expires: 30)) == ["billing_issue"])
    #expect(kinds(previous(.billingRetry, expires: 30), evaluation(.active, expires: 60)) == ["recovered"])
    #expect(
      kinds(previous(.active, expires: 30, willRenew: false), evaluation(.expired, expires: 30, willRenew: false)) == [
        "expired"
      ])
    #expect(kinds(previous(.active, expires: 30), evaluation(.revoked, expires: 30, reason: .refunded)) == ["refunded"])
    #expect(
      kinds(previous(.active, expires: 30), evaluation(.revoked, expires: 30, reason: .familySharingRevoked)) == [
        "revoked"
      ])
    #expect(
      kinds(previous(.active, expires: 30), evaluation(.active, product: "yearly", expires: 365)) == ["product_changed"]
    )
    #expect(kinds(previous(.active, expires: 30), evaluation(.active, expires: 30)) == [])
  }

  @Test("the next check follows the nearest boundary, else the sweep; backoff grows and honours Retry-After")
  func schedule() {
    var settings = WorkerSettings()
    settings.recheckDelayMs = 10
    settings.sweepIntervalMs = 1_000_000
    #expect(CheckSchedule.next(after: evaluation(.active, expires: 500), nowMs: 100, settings: settings) == 510)
    #expect(CheckSchedule.next(after: evaluation(.expired, expires: 50), nowMs: 100, settings: settings) == 1_000_100)
    var paused = evaluation(.paused, expires: 50)
    paused.pausedUntilMs = 700
    #expect(CheckSchedule.next(after: paused, nowMs: 100, settings: settings) == 710, "checked when it resumes")
    // Ended long ago: dormant, checked on the rare sweep; ended lately: the daily one.
    settings.dormantAfterMs = 1_000
    settings.dormantSweepIntervalMs = 5_000_000
    #expect(CheckSchedule.next(after: evaluation(.expired, expires: 50), nowMs: 2_000, settings: settings) == 5_002_000)
    #expect(CheckSchedule.next(after: evaluation(.expired, expires: 50), nowMs: 900, settings: settings) == 1_000_900)
    #expect(CheckSchedule.next(after: evaluation(.active, expires: 5_000), nowMs: 2_000, settings: settings) == 5_010)
    // Past the horizon: one last check just after it, then none by the clock.
    settings.finalCheckAfterMs = 3_000_000
    #expect(CheckSchedule.next(after: evaluation(.expired, expires: 50), nowMs: 2_000, settings: settings) == 3_000_051)
    #expect(CheckSchedule.next(after: evaluation(.expired, expires: 50), nowMs: 3_000_051, settings: settings) == nil)
    #expect(CheckSchedule.next(after: evaluation(.revoked, expires: 50), nowMs: 4_000_000, settings: settings) == nil)
    #expect(
      CheckSchedule.next(after: evaluation(.active, expires: 4_500_000), nowMs: 4_000_000, settings: settings)
        == 4_500_010, "a live chain is always scheduled")
    let backoff = Backoff(baseMs: 1_000, maxMs: 60_000)
    for attempt in 1...10 {
      let delay = backoff.delayMs(attempt: attempt)
      let ceiling = min(60_000, 1_000 << (attempt - 1))
      #expect(delay >= ceiling / 2 && delay <= ceiling)
    }
    #expect(backoff.delayMs(attempt: 1, retryAfterMs: 30_000) == 30_000)
  }
}
