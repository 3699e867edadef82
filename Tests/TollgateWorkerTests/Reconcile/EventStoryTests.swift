import Testing
import TollgateCore

@testable import TollgateWorker

/// The events each store's plan changes, refunds and trial conversions tell (issue 24, items 8, 9
/// and the trial conversion of item 3), derived from real histories evaluated by the lifecycle.
@Suite("Event story")
struct EventStoryTests {
  static let day: Int64 = 86_400_000
  static let groups = [
    SubscriptionGroup(
      id: "g",
      products: [
        .init(productId: "premium", level: 1), .init(productId: "monthly", level: 2),
        .init(productId: "basic", level: 3),
      ])
  ]
  let deriver = EventDeriver(groups: Self.groups)

  func history(
    _ store: Store, id: String = "chain", _ transactions: [StoreTransaction], renewsInto: String? = nil,
    willRenew: Bool = true, google: GooglePlaySubscriptionState? = nil, linked: String? = nil, parent: String? = nil
  ) -> SubscriptionHistory {
    SubscriptionHistory(
      store: store, purchaseId: id, environment: .production, transactions: transactions,
      renewalInfo: RenewalInfo(willAutoRenew: willRenew, autoRenewProductId: renewsInto, googlePlayState: google),
      linkedPurchaseToken: linked, parentProductId: parent)
  }

  func history(_ transactions: [StoreTransaction], renewsInto: String? = nil) -> SubscriptionHistory {
    history(.appStore, id: "chain", transactions, renewsInto: renewsInto)
  }

  func tx(
    _ id: String, _ product: String, from: Int64, to: Int64, trial: Bool = false, upgraded: Bool = false,
    revokedAt: Int64? = nil, reason: RevocationReason? = nil
  ) -> StoreTransaction {
    StoreTransaction(
      transactionId: id, productId: product, purchaseDateMs: from * Self.day, expiresDateMs: to * Self.day,
      offerType: trial ? .introductory : nil, offerDiscountType: trial ? .freeTrial : nil,
      revocationDateMs: revokedAt.map { $0 * Self.day }, revocationReason: revokedAt == nil ? nil : reason ?? .refunded,
      isUpgraded: upgraded, priceMilli: trial ? 0 : 9_990, currency: "USD", storefront: "USA")
  }

  func stored(_ history: SubscriptionHistory, atDay day: Int64, user: String? = "u") -> StoredSubscription {
    let evaluation = SubscriptionLifecycle.evaluate(history, at: day * Self.day, groups: Self.groups)
    return StoredSubscription(
      store: history.store, purchaseId: history.purchaseId, appId: "app", userId: user, history: history,
      evidence: VerificationEvidence(source: "t", environment: .production, payloads: [], verifiedAtMs: 0),
      state: evaluation.state, reason: evaluation.reason.rawValue, productId: evaluation.productId,
      willRenew: evaluation.willRenew, expiresAtMs: evaluation.expiresAtMs, accessEndsAtMs: evaluation.accessEndsAtMs,
      appAccountToken: nil, verifiedAtMs: day * Self.day, nextCheckAtMs: nil)
  }

  func derive(
    from previous: StoredSubscription?, to history: SubscriptionHistory, atDay day: Int64,
    replacing: StoredSubscription? = nil
  ) -> [WorkerEvent] {
    deriver.events(
      previous: previous, now: SubscriptionLifecycle.evaluate(history, at: day * Self.day, groups: Self.groups),
      history: history, userId: "u", atMs: day * Self.day, replacing: replacing)
  }

  @Test("Apple: an upgrade is one product_changed upgrade, effective at once; no `upgraded`")
  func appleUpgrade() throws {
    let before = history([tx("t1", "basic", from: 0, to: 30)])
    let after = history([
      tx("t1", "basic", from: 0, to: 30, upgraded: true), tx("t2", "premium", from: 10, to: 40),
    ])
    let events = derive(from: stored(before, atDay: 5), to: after, atDay: 10)
    #expect(events.map(\.kind) == ["product_changed"])
    let change = try #require(events.first?.details.productChange)
    #expect(change.direction == .upgrade)
    #expect(change.fromProductId == "basic" && change.toProductId == "premium")
    #expect(change.effectiveAtMs == 10 * Self.day)
    #expect(events.first?.details.transactionId == "t2")
    #expect(events.first?.details.priceMilli == 9_990 && events.first?.details.currency == "USD")
  }

  @Test("Apple: a downgrade is announced once when scheduled (effective at the renewal), then renews")
  func appleDowngrade() {
    let start = history([tx("t1", "premium", from: 0, to: 30)])
    let scheduled = history([tx("t1", "premium", from: 0, to: 30)], renewsInto: "basic")
    let announced = derive(from: stored(start, atDay: 2), to: scheduled, atDay: 5)
    #expect(announced.map(\.kind) == ["product_changed"])
    #expect(announced.first?.details.productChange?.direction == .downgrade)
    #expect(announced.first?.details.productChange?.effectiveAtMs == 30 * Self.day)
    let renewed = history(
      [tx("t1", "premium", from: 0, to: 30), tx("t2", "basic", from: 30, to: 60)], renewsInto: "basic")
    #expect(derive(from: stored(scheduled, atDay: 5), to: renewed, atDay: 31).map(\.kind) == ["renewed"])
    // Withdrawn before it took effect: told too.
    let withdrawn = history([tx("t1", "premium", from: 0, to: 30)], renewsInto: "premium")
    let canceled = derive(from: stored(scheduled, atDay: 5), to: withdrawn, atDay: 6)
    #expect(canceled.map(\.kind) == ["product_change_canceled"])
  }

  @Test("Google: the linked token is one product_changed; the replaced token ends without an event")
  func googleLinkedToken() {
    let old = history(.googlePlay, id: "old", [tx("GPA.1", "basic", from: 0, to: 30)])
    let oldStored = stored(old, atDay: 3)
    let new = history(.googlePlay, id: "new", [tx("GPA.2", "premium", from: 3, to: 33)], linked: "old")
    let events = derive(from: nil, to: new, atDay: 3, replacing: oldStored)
    #expect(events.map(\.kind) == ["product_changed"])
    #expect(events.first?.details.productChange?.direction == .upgrade)
    #expect(events.first?.details.productChange?.fromPurchaseId == "old")
    var replaced = old
    replaced.replacedAtMs = 3 * Self.day
    replaced.renewalInfo?.expirationIntent = .replaced
    replaced.renewalInfo?.willAutoRenew = false
    #expect(derive(from: oldStored, to: replaced, atDay: 4).isEmpty)
    // A re-signup long after the linked purchase ended is a purchase.
    let later = history(.googlePlay, id: "later", [tx("GPA.3", "premium", from: 90, to: 120)], linked: "old")
    #expect(derive(from: nil, to: later, atDay: 90, replacing: stored(old, atDay: 60)).map(\.kind) == ["purchased"])
  }

  @Test("Amazon: a new receipt of another tier is a product change; of the same tier, a renewal")
  func amazonReceipts() {
    let old = stored(history(.amazon, id: "r1", [tx("r1", "basic", from: 0, to: 30)], parent: "sub"), atDay: 2)
    let tier = history(.amazon, id: "r2", [tx("r2", "premium", from: 2, to: 32)], parent: "sub")
    let changed = derive(from: nil, to: tier, atDay: 2, replacing: old)
    #expect(changed.map(\.kind) == ["product_changed"])
    #expect(changed.first?.details.productChange?.effectiveAtMs == 2 * Self.day)
    let term = history(.amazon, id: "r3", [tx("r3", "basic", from: 30, to: 60)], parent: "sub")
    let renewal = stored(history(.amazon, id: "r1", [tx("r1", "basic", from: 0, to: 30)], parent: "sub"), atDay: 29)
    #expect(derive(from: nil, to: term, atDay: 30, replacing: renewal).map(\.kind) == ["renewed"])
  }

  @Test("Google refund: the revoked read says nothing, the voided purchase one `refunded`; a chargeback `revoked`")
  func googleRefund() {
    let paid = history(.googlePlay, [tx("GPA.1", "basic", from: 0, to: 30)], google: .active)
    let before = stored(paid, atDay: 5)
    // SUBSCRIPTION_REVOKED: Google says EXPIRED, the line item ends now; no reason yet.
    let cut = history(.googlePlay, [tx("GPA.1", "basic", from: 0, to: 10)], willRenew: false, google: .expired)
    #expect(derive(from: before, to: cut, atDay: 10).isEmpty)
    for (reason, kind) in [(RevocationReason.refunded, "refunded"), (.revoked, "revoked")] {
      let voided = history(
        .googlePlay, [tx("GPA.1", "basic", from: 0, to: 10, revokedAt: 10, reason: reason)], willRenew: false,
        google: .expired)
      let events = derive(from: stored(cut, atDay: 10), to: voided, atDay: 10)
      #expect(events.map(\.kind) == [kind])
      #expect(events.first?.details.reason == reason.rawValue)
      // Learned at once (the voided purchase came first): still one event.
      #expect(derive(from: before, to: voided, atDay: 10).map(\.kind) == [kind])
      // The sweep reads it again: nothing new.
      #expect(derive(from: stored(voided, atDay: 10), to: voided, atDay: 11).isEmpty)
    }
  }

  @Test("Apple: a refund of an older renewal is one `refunded` naming that transaction; access stays")
  func olderRenewalRefunded() {
    let chain = history([tx("t1", "basic", from: 0, to: 30), tx("t2", "basic", from: 30, to: 60)])
    let refunded = history([
      tx("t1", "basic", from: 0, to: 30, revokedAt: 40), tx("t2", "basic", from: 30, to: 60),
    ])
    let events = derive(from: stored(chain, atDay: 35), to: refunded, atDay: 40)
    #expect(events.map(\.kind) == ["refunded"])
    #expect(events.first?.details.transactionId == "t1")
    #expect(events.first?.state == .active)
    #expect(derive(from: stored(refunded, atDay: 40), to: refunded, atDay: 41).isEmpty, "once")
  }

  @Test("a trial billed a day before it ends is one trial_converted, not renewed then trial_converted")
  func trialConversion() {
    let trial = history([tx("t1", "basic", from: 0, to: 7, trial: true)])
    let billed = history([tx("t1", "basic", from: 0, to: 7, trial: true), tx("t2", "basic", from: 7, to: 37)])
    let converted = derive(from: stored(trial, atDay: 1), to: billed, atDay: 6)
    #expect(converted.map(\.kind) == ["trial_converted"])
    #expect(converted.first?.details.transactionId == "t2" && converted.first?.details.periodType == .normal)
    #expect(derive(from: stored(billed, atDay: 6), to: billed, atDay: 8).isEmpty)
    // Billed without the early read: told when the paid period shows.
    #expect(derive(from: stored(trial, atDay: 1), to: billed, atDay: 8).map(\.kind) == ["trial_converted"])
  }

  @Test("events carry environment, transaction, period type, expiry and price")
  func details() throws {
    let trial = history([tx("t1", "basic", from: 0, to: 7, trial: true)])
    let event = try #require(derive(from: nil, to: trial, atDay: 1).first)
    #expect(event.kind == "purchased")
    #expect(event.details.environment == .production)
    #expect(event.details.periodType == .trial)
    #expect(event.details.expiresAtMs == 7 * Self.day)
    #expect(event.details.storefront == "USA")
  }
}
