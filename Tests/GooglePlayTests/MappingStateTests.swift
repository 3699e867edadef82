import Foundation
import GooglePlay
import Testing
import TollgateCore

/// Each Google `subscriptionState` of a full resource, mapped and evaluated.
@Suite("subscriptionState → unified state")
struct MappingStateTests {
  func evaluate(_ mapping: GooglePlayMapping, at moment: String) -> SubscriptionEvaluation {
    SubscriptionLifecycle.evaluate(mapping.history, at: ms(moment))
  }

  @Test func gracePeriodEntitlesUntilItsEnd() throws {
    let m = try Inline.map(state: "SUBSCRIPTION_STATE_IN_GRACE_PERIOD", expiry: "2026-09-05T00:00:00Z")
    #expect(m.history.renewalInfo?.gracePeriodExpiresDateMs == ms("2026-09-05T00:00:00Z"))
    let grace = evaluate(m, at: "2026-09-02T00:00:00Z")
    #expect(grace.state == .gracePeriod && grace.isEntitled)
    #expect(grace.gracePeriodExpiresAtMs == ms("2026-09-05T00:00:00Z"))
    #expect(!evaluate(m, at: "2026-09-06T00:00:00Z").isEntitled)
  }

  @Test func pausedAfterThePeriodWithItsResumeTime() throws {
    let m = try Inline.map(
      state: "SUBSCRIPTION_STATE_PAUSED", expiry: "2026-08-31T00:00:00Z",
      extra: #""pausedStateContext": {"autoResumeTime": "2026-10-01T00:00:00.250Z"},"#)
    let paused = evaluate(m, at: "2026-09-02T00:00:00Z")
    #expect(paused.state == .paused && !paused.isEntitled && paused.pausedUntilMs == ms("2026-10-01T00:00:00.250Z"))
  }

  @Test func expiredWithAFutureExpiryIsNotEntitledAfterTheRead() throws {
    let m = try Inline.map(state: "SUBSCRIPTION_STATE_EXPIRED", expiry: "2026-12-01T00:00:00Z")
    let now = evaluate(m, at: "2026-09-01T00:00:01Z")
    #expect(now.state == .expired && !now.isEntitled)
  }

  @Test(arguments: ["SUBSCRIPTION_STATE_PENDING", "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED"])
  func unpaidStatesGrantNothing(state: String) throws {
    let m = try Inline.map(state: state, expiry: "2026-12-01T00:00:00Z")
    #expect(m.history.transactions.isEmpty && m.notes == [.notPaid(subscriptionState: state)] && !m.failsClosed)
    #expect(!evaluate(m, at: "2026-09-02T00:00:00Z").isEntitled)
  }

  @Test func offerPhasesGiveTrialAndIntroOffer() throws {
    let trial = try Inline.map(
      state: "SUBSCRIPTION_STATE_ACTIVE", expiry: "2026-09-08T00:00:00Z", item: #""offerPhase": {"freeTrial": {}},"#)
    #expect(evaluate(trial, at: "2026-09-02T00:00:00Z").state == .trial)
    let intro = try Inline.map(
      state: "SUBSCRIPTION_STATE_ACTIVE", expiry: "2026-09-08T00:00:00Z",
      item: #""offerPhase": {"introductoryPrice": {}},"#)
    #expect(evaluate(intro, at: "2026-09-02T00:00:00Z").state == .introOffer)
    let base = try Inline.map(
      state: "SUBSCRIPTION_STATE_ACTIVE", expiry: "2026-09-08T00:00:00Z", item: #""offerPhase": {"basePrice": {}},"#)
    #expect(evaluate(base, at: "2026-09-02T00:00:00Z").state == .active)
  }

  @Test(arguments: [
    ("systemInitiatedCancellation", ExpirationIntent.billingError, StateReason.billingError),
    ("developerInitiatedCancellation", .other, .lapsed),
    ("replacementCancellation", .replaced, .replaced),
    ("userInitiatedCancellation", .customerCanceled, .customerCanceled),
  ])
  func cancelReasons(member: String, intent: ExpirationIntent, reason: StateReason) throws {
    let m = try Inline.map(
      state: "SUBSCRIPTION_STATE_EXPIRED", expiry: "2026-08-31T00:00:00Z",
      extra: #""canceledStateContext": {"\#(member)": {}},"#)
    #expect(m.history.renewalInfo?.expirationIntent == intent)
    let ended = evaluate(m, at: "2026-09-02T00:00:00Z")
    #expect(ended.state == .expired && ended.reason == reason)
  }

  @Test func aLinkedPurchaseTokenEndsTheOldTokenAtTheNewStart() throws {
    let old = try Inline.map(state: "SUBSCRIPTION_STATE_ACTIVE", expiry: "2026-09-30T00:00:00Z")
    let body = """
      {"startTime": "2026-08-15T00:00:00Z", "subscriptionState": "SUBSCRIPTION_STATE_ACTIVE",
       "linkedPurchaseToken": "tok",
       "lineItems": [{"productId": "pro_plus", "expiryTime": "2026-09-15T00:00:00Z",
                      "autoRenewingPlan": {"autoRenewEnabled": true}}]}
      """
    let resource = try JSONDecoder().decode(SubscriptionPurchaseV2.self, from: Data(body.utf8))
    let new = GooglePlayMapping(subscription: resource, purchaseToken: "tok-2", packageName: "p", asOfMs: 0)
    #expect(new.history.transactions.first?.transactionId == "tok-2|pro_plus")
    let resolved = SubscriptionReplacements.resolve([old.history, new.history])
    #expect(resolved[0].replacedAtMs == ms("2026-08-15T00:00:00Z"))
    let oldNow = SubscriptionLifecycle.evaluate(resolved[0], at: ms("2026-08-20T00:00:00Z"))
    #expect(oldNow.state == .expired && oldNow.reason == .replaced && !oldNow.isEntitled)
    #expect(SubscriptionLifecycle.evaluate(resolved[1], at: ms("2026-08-20T00:00:00Z")).isEntitled)
  }

  @Test func priceChangeStates() throws {
    func status(_ plan: String) throws -> PriceIncreaseStatus? {
      let decoded = try JSONDecoder().decode(AutoRenewingPlan.self, from: Data(plan.utf8))
      return PriceIncreaseStatus(googlePlay: decoded)
    }
    #expect(try status(#"{"priceChangeDetails": {"priceChangeState": "OUTSTANDING"}}"#) == .pending)
    #expect(try status(#"{"priceChangeDetails": {"priceChangeState": "CONFIRMED"}}"#) == .agreed)
    #expect(try status(#"{"priceChangeDetails": {"priceChangeState": "APPLIED"}}"#) == .agreed)
    #expect(try status(#"{"priceChangeDetails": {"priceChangeState": "CANCELED"}}"#) == nil)
    #expect(try status(#"{"autoRenewEnabled": true}"#) == nil)
  }
}
