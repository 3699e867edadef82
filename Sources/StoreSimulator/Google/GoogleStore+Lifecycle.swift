/// What Google Play does on its own as virtual time passes: renew at the period's end (or pause,
/// or replace with a deferred downgrade, or expire when canceled), decline a renewal into the
/// grace period and account hold, resume a pause, and refund what was never acknowledged.
extension GoogleStore {
  mutating func fire(_ event: ScheduledEvent, core: inout SimCore) -> String {
    if event.kind == "acknowledgementDeadline" { return acknowledgementDeadline(event.subject, core: &core) }
    guard var subscription = subscriptions[event.subject], subscription.epoch == event.epoch else { return "stale" }
    let outcome: String
    switch event.kind {
    case "periodEnd": outcome = periodEnd(&subscription, core: &core)
    case "graceEnd": outcome = graceEnd(&subscription, core: &core)
    case "holdEnd":
      expire(&subscription, cancellation: .system, core: &core)
      outcome = "account hold ended: expired"
    case "autoResume":
      subscription.autoResumeTimeMs = nil
      outcome = charge(&subscription, fromMs: core.nowMs, notification: .renewed, core: &core)
    default: outcome = "unknown event"
    }
    save(subscription)
    return outcome
  }

  private mutating func periodEnd(_ subscription: inout GoogleSubscriptionPurchase, core: inout SimCore) -> String {
    switch subscription.state {
    case .canceled:
      expire(&subscription, cancellation: subscription.cancellation ?? .user, core: &core)
      return "expired (canceled)"
    case .active:
      break
    default:
      return "not active"
    }
    if var change = subscription.priceChange, change.state == "OUTSTANDING",
      let deadline = change.consentDeadlineMs, deadline <= subscription.expiryTimeMs
    {
      change.state = "CANCELED"
      subscription.priceChange = change
      subscription.cancellation = .system
      subscription.cancelTimeMs = core.nowMs
      notify(.canceled, subscription, core: &core)
      expire(&subscription, cancellation: .system, core: &core)
      return "no consent to the price increase: canceled and expired"
    }
    if let productId = subscription.deferredReplacementProductId {
      let replacement = replace(&subscription, with: productId, startMs: subscription.expiryTimeMs, core: &core)
      return "replaced by a deferred \(productId) purchase \(replacement.prefix(8))…"
    }
    if let pauseMs = subscription.scheduledPauseMs {
      subscription.scheduledPauseMs = nil
      subscription.state = .paused
      subscription.autoResumeTimeMs = subscription.expiryTimeMs + pauseMs
      subscription.epoch += 1
      schedule("autoResume", at: subscription.expiryTimeMs + pauseMs, subscription, core: &core)
      notify(.paused, subscription, core: &core)
      return "paused until \(subscription.expiryTimeMs + pauseMs)"
    }
    return charge(&subscription, fromMs: subscription.expiryTimeMs, notification: .renewed, core: &core)
  }

  /// Charges the next period from `fromMs`, or declines into grace / hold when renewals fail.
  mutating func charge(
    _ subscription: inout GoogleSubscriptionPurchase, fromMs: Int64, notification: GoogleNotificationType,
    core: inout SimCore
  ) -> String {
    let product = config.subscription(subscription.productId)
    if subscription.failRenewals {
      subscription.renewalDeclinedAtMs = fromMs
      subscription.epoch += 1
      if let grace = product?.gracePeriodMs, grace > 0 {
        subscription.state = .inGracePeriod
        // Google reports the end of the grace period as the item's expiryTime.
        subscription.expiryTimeMs = fromMs + grace
        schedule("graceEnd", at: fromMs + grace, subscription, core: &core)
        notify(.inGracePeriod, subscription, core: &core)
        return "renewal declined: grace period"
      }
      return hold(&subscription, core: &core)
    }
    subscription.state = .active
    subscription.renewalDeclinedAtMs = nil
    if subscription.offerPhase != .basePrice, subscription.offerPhasesLeft > 0 {
      subscription.offerPhasesLeft -= 1
    } else {
      subscription.offerPhase = .basePrice
    }
    if var change = subscription.priceChange, change.state != "OUTSTANDING", change.expectedChargeTimeMs <= fromMs {
      subscription.recurringPriceMicros = change.newPriceMicros
      change.state = "APPLIED"
      subscription.priceChange = change
    }
    let introPeriodMs = product?.introductoryPrice?.periodMs
    let periodMs =
      subscription.offerPhase == .introductoryPrice
      ? (introPeriodMs ?? product?.periodMs ?? 30 * SimDuration.dayMs) : (product?.periodMs ?? 30 * SimDuration.dayMs)
    subscription.expiryTimeMs = fromMs + periodMs
    subscription.orderIds.append("\(subscription.orderIdBase)..\(subscription.orderIds.count - 1)")
    scheduleExpiry(&subscription, core: &core)
    notify(notification, subscription, core: &core)
    return notification == .recovered
      ? "recovered as \(subscription.latestOrderId)" : "renewed as \(subscription.latestOrderId)"
  }

  private mutating func graceEnd(_ subscription: inout GoogleSubscriptionPurchase, core: inout SimCore) -> String {
    guard subscription.state == .inGracePeriod else { return "not in grace period" }
    return hold(&subscription, core: &core)
  }

  /// Account hold: no access while Google keeps retrying; expires when the hold ends.
  private mutating func hold(_ subscription: inout GoogleSubscriptionPurchase, core: inout SimCore) -> String {
    let holdMs = config.subscription(subscription.productId)?.accountHoldMs ?? 0
    guard holdMs > 0 else {
      expire(&subscription, cancellation: .system, core: &core)
      return "renewal declined: expired (no account hold)"
    }
    subscription.state = .onHold
    // The item's expiry is the end of the last paid (or grace) time: in the past while on hold.
    subscription.expiryTimeMs = min(subscription.expiryTimeMs, core.nowMs)
    subscription.epoch += 1
    schedule("holdEnd", at: core.nowMs + holdMs, subscription, core: &core)
    notify(.onHold, subscription, core: &core)
    return "account hold"
  }

  /// The end of a subscription: EXPIRED, access ended at the earlier of now and its expiry.
  mutating func expire(
    _ subscription: inout GoogleSubscriptionPurchase, cancellation: GoogleCancellation, core: inout SimCore,
    notification: GoogleNotificationType? = .expired
  ) {
    subscription.state = .expired
    subscription.cancellation = subscription.cancellation ?? cancellation
    subscription.autoRenewEnabled = false
    subscription.expiryTimeMs = min(subscription.expiryTimeMs, core.nowMs)
    subscription.endedAtMs = core.nowMs
    subscription.epoch += 1
    if let notification { notify(notification, subscription, core: &core) }
  }

  /// Google refunds and revokes a purchase still unacknowledged when the window ends.
  private mutating func acknowledgementDeadline(_ token: String, core: inout SimCore) -> String {
    if let subscription = subscriptions[token] {
      guard !subscription.acknowledged, !subscription.hasEnded, !isVoided(token) else { return "stale" }
      refundSubscription(token, reason: 0, source: 2, revoke: true, core: &core)
      return "not acknowledged in time: refunded and revoked"
    }
    if let product = products[token] {
      guard !product.acknowledged, product.purchaseState == 0 else { return "stale" }
      refundProduct(token, reason: 0, source: 2, core: &core)
      return "not acknowledged in time: refunded"
    }
    return "stale"
  }
}
