/// What the App Store does on its own as virtual time passes: renew, fail and retry, end the
/// grace period, give up after the retry window, expire.
extension AppleStore {
  mutating func fire(_ event: ScheduledEvent, core: inout SimCore) -> String {
    guard var subscription = subscriptions[event.subject], subscription.epoch == event.epoch else { return "stale" }
    defer { save(subscription) }
    switch event.kind {
    case "renew": return renew(&subscription, core: &core)
    case "retry": return retry(&subscription, core: &core)
    case "graceEnd":
      guard subscription.state == .gracePeriod else { return "no grace period" }
      subscription.state = .billingRetry
      notify("GRACE_PERIOD_EXPIRED", nil, subscription, core: &core)
      return "grace period expired"
    case "retryWindowEnd":
      guard subscription.inBillingTrouble else { return "not in billing retry" }
      expire(&subscription, intent: 2, subtype: "BILLING_RETRY", core: &core)
      return "expired after billing retry"
    default:
      return "unknown event"
    }
  }

  private mutating func renew(_ subscription: inout AppleSubscription, core: inout SimCore) -> String {
    guard subscription.state == .active else { return "not active" }
    guard subscription.autoRenewOn else {
      expire(&subscription, intent: 1, subtype: "VOLUNTARY", core: &core)
      return "expired (auto-renew off)"
    }
    if subscription.failRenewals {
      let now = core.nowMs
      subscription.billingIssueSinceMs = now
      subscription.epoch += 1
      if let grace = config.gracePeriodMs {
        subscription.state = .gracePeriod
        subscription.gracePeriodExpiresMs = now + grace
        schedule("graceEnd", at: now + grace, subscription, core: &core)
        notify("DID_FAIL_TO_RENEW", "GRACE_PERIOD", subscription, core: &core)
      } else {
        subscription.state = .billingRetry
        notify("DID_FAIL_TO_RENEW", nil, subscription, core: &core)
      }
      if let first = config.billingRetryScheduleMs.first(where: { $0 < config.billingRetryWindowMs }) {
        schedule("retry", at: now + first, subscription, core: &core)
      }
      schedule("retryWindowEnd", at: now + config.billingRetryWindowMs, subscription, core: &core)
      return subscription.state == .gracePeriod ? "billing failed, grace period" : "billing failed, billing retry"
    }
    let transaction = chargeRenewal(&subscription, startMs: subscription.expiresMs, core: &core)
    notify("DID_RENEW", nil, subscription, core: &core)
    renewFamily(of: subscription, subtype: nil, core: &core)
    return "renewed as \(transaction.transactionId)"
  }

  /// A billing retry: succeeds once billing was recovered (`DID_RENEW`/`BILLING_RECOVERY`),
  /// else schedules the next one inside the window.
  mutating func retry(_ subscription: inout AppleSubscription, core: inout SimCore) -> String {
    guard subscription.inBillingTrouble, let since = subscription.billingIssueSinceMs else {
      return "not in billing retry"
    }
    let now = core.nowMs
    if subscription.failRenewals {
      if let next = config.billingRetryScheduleMs.first(where: { $0 > now - since && $0 < config.billingRetryWindowMs })
      {
        schedule("retry", at: since + next, subscription, core: &core)
      }
      return "billing retry failed"
    }
    // Recovered inside the grace period: no days lost. After it: a new period from now.
    let start = subscription.state == .gracePeriod ? subscription.expiresMs : now
    subscription.state = .active
    subscription.billingIssueSinceMs = nil
    subscription.gracePeriodExpiresMs = nil
    let transaction = chargeRenewal(&subscription, startMs: start, purchaseMs: now, core: &core)
    notify("DID_RENEW", "BILLING_RECOVERY", subscription, core: &core)
    renewFamily(of: subscription, subtype: "BILLING_RECOVERY", core: &core)
    return "billing recovered as \(transaction.transactionId)"
  }

  /// A renewal transaction (the pending downgrade, if any, takes effect) and the next renewal.
  @discardableResult
  private mutating func chargeRenewal(
    _ subscription: inout AppleSubscription, startMs: Int64, purchaseMs: Int64? = nil, core: inout SimCore
  ) -> AppleTransaction {
    let productId = subscription.autoRenewProductId
    let product = config.product(productId)
    var price = product?.price ?? 0
    var offer: (type: Int, discount: String)?
    if subscription.introPeriodsLeft > 0, let introPrice = product?.introPrice {
      subscription.introPeriodsLeft -= 1
      price = introPrice
      offer = (1, "PAY_AS_YOU_GO")
    }
    let transaction = addTransaction(
      to: &subscription, productId: productId, purchaseMs: purchaseMs ?? startMs,
      expiresMs: startMs + (product?.periodMs ?? 30 * SimDuration.dayMs), reason: "RENEWAL", price: price, offer: offer,
      core: &core)
    scheduleRenewal(&subscription, core: &core)
    return transaction
  }

  mutating func expire(_ subscription: inout AppleSubscription, intent: Int, subtype: String, core: inout SimCore) {
    subscription.state = .expired
    subscription.expirationIntent = intent
    subscription.billingIssueSinceMs = nil
    subscription.epoch += 1
    notify("EXPIRED", subtype, subscription, core: &core)
    for memberId in subscription.familyMembers {
      guard var member = subscriptions[memberId], member.state != .expired, member.state != .revoked else { continue }
      expire(&member, intent: intent, subtype: subtype, core: &core)
      save(member)
    }
  }

  /// Family members get a FAMILY_SHARED transaction for each renewal of the organiser's.
  private mutating func renewFamily(of organizer: AppleSubscription, subtype: String?, core: inout SimCore) {
    for memberId in organizer.familyMembers {
      guard var member = subscriptions[memberId], member.state != .revoked else { continue }
      member.state = .active
      member.autoRenewProductId = organizer.productId
      let price = config.product(organizer.productId)?.price ?? 0
      addTransaction(
        to: &member, productId: organizer.productId, purchaseMs: core.nowMs, expiresMs: organizer.expiresMs,
        reason: "RENEWAL", price: price, core: &core)
      notify("DID_RENEW", subtype, member, core: &core)
      save(member)
    }
  }
}
