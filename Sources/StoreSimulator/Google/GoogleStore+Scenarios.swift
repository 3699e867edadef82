/// What users (and their banks) do to a subscription: cancel and restore it, fail and fix
/// payments, pause and resume, upgrade and downgrade.
extension GoogleStore {
  /// The user cancels in the Play Store: still entitled until the expiry, then EXPIRED.
  mutating func cancel(_ token: String, core: inout SimCore) throws(StoreSimulatorError) {
    var subscription = try subscription(token)
    guard [.active, .inGracePeriod, .onHold, .paused].contains(subscription.state) else {
      throw .conflict("only an active, grace, hold or paused subscription can be canceled")
    }
    subscription.autoRenewEnabled = false
    subscription.cancellation = .user
    subscription.cancelTimeMs = core.nowMs
    subscription.scheduledPauseMs = nil
    subscription.deferredReplacementProductId = nil
    if subscription.state == .active || subscription.state == .inGracePeriod {
      subscription.state = .canceled
      // Access runs out at the expiry (in grace: the grace period's end), then EXPIRED.
      scheduleExpiry(&subscription, core: &core)
      notify(.canceled, subscription, core: &core)
    } else {
      // On hold or paused there is no access left to run out: it ends now.
      notify(.canceled, subscription, core: &core)
      expire(&subscription, cancellation: .user, core: &core)
    }
    save(subscription)
  }

  /// The user restores a canceled subscription before it expired: SUBSCRIPTION_RESTARTED.
  mutating func restart(_ token: String, core: inout SimCore) throws(StoreSimulatorError) {
    var subscription = try subscription(token)
    guard subscription.state == .canceled, subscription.cancellation == .user else {
      throw .conflict("only a subscription the user canceled, not yet expired, can be restarted")
    }
    subscription.state = .active
    subscription.autoRenewEnabled = true
    subscription.cancellation = nil
    subscription.cancelTimeMs = nil
    save(subscription)
    notify(.restarted, subscription, core: &core)
  }

  /// Every renewal from now on is declined until `recoverPayment`.
  mutating func failRenewals(_ token: String) throws(StoreSimulatorError) {
    var subscription = try subscription(token)
    subscription.failRenewals = true
    save(subscription)
  }

  /// The user fixes the payment method. In the grace period the renewal goes through at once and
  /// keeps its date (SUBSCRIPTION_RENEWED); on hold the subscription is recovered with a new period
  /// from now (SUBSCRIPTION_RECOVERED); otherwise later renewals simply succeed.
  mutating func recoverPayment(_ token: String, core: inout SimCore) throws(StoreSimulatorError) -> String {
    var subscription = try subscription(token)
    subscription.failRenewals = false
    defer { save(subscription) }
    switch subscription.state {
    case .inGracePeriod:
      let from = subscription.renewalDeclinedAtMs ?? core.nowMs
      return charge(&subscription, fromMs: from, notification: .renewed, core: &core)
    case .onHold:
      return charge(&subscription, fromMs: core.nowMs, notification: .recovered, core: &core)
    default:
      return "renewals will succeed"
    }
  }

  /// The user schedules a pause of `durationMs` from the next renewal (PAUSE_SCHEDULE_CHANGED);
  /// at the renewal the subscription is PAUSED until its auto-resume time.
  mutating func pause(_ token: String, durationMs: Int64, core: inout SimCore) throws(StoreSimulatorError) {
    var subscription = try subscription(token)
    guard subscription.state == .active, subscription.autoRenewEnabled else {
      throw .conflict("only an active, auto-renewing subscription can be paused")
    }
    guard durationMs > 0 else { throw .invalid("a pause needs a positive duration") }
    subscription.scheduledPauseMs = durationMs
    save(subscription)
    notify(.pauseScheduleChanged, subscription, core: &core)
  }

  /// The user resumes: a paused subscription renews now; a scheduled pause is called off.
  mutating func resume(_ token: String, core: inout SimCore) throws(StoreSimulatorError) -> String {
    var subscription = try subscription(token)
    defer { save(subscription) }
    if subscription.state == .paused {
      subscription.autoResumeTimeMs = nil
      return charge(&subscription, fromMs: core.nowMs, notification: .renewed, core: &core)
    }
    guard subscription.scheduledPauseMs != nil else { throw .conflict("the subscription is not paused") }
    subscription.scheduledPauseMs = nil
    notify(.pauseScheduleChanged, subscription, core: &core)
    return "pause called off"
  }

  /// Replaces the subscription's product. Immediate modes (an upgrade by default) give a new
  /// purchase token now, linked to the old one, which is canceled by replacement; `DEFERRED` (a
  /// downgrade by default) shows `deferredItemReplacement` until the renewal, then does the same.
  mutating func changeProduct(_ token: String, to productId: String, mode: String?, core: inout SimCore)
    throws(StoreSimulatorError) -> String?
  {
    var subscription = try subscription(token)
    guard let target = config.subscription(productId) else { throw .invalid("no Google subscription \(productId)") }
    guard productId != subscription.productId else { throw .invalid("the subscription already is \(productId)") }
    guard subscription.state == .active || subscription.state == .canceled else {
      throw .conflict("only an active (or canceled, unexpired) subscription can change product")
    }
    let current = config.subscription(subscription.productId)?.priceMicros ?? 0
    let replacementMode = mode ?? (target.priceMicros >= current ? "CHARGE_PRORATED_PRICE" : "DEFERRED")
    guard Self.replacementModes.contains(replacementMode) else {
      throw .invalid(
        "unknown replacementMode \(replacementMode); expected \(Self.replacementModes.joined(separator: ", "))")
    }
    if replacementMode == "DEFERRED" {
      subscription.deferredReplacementProductId = productId
      subscription.state = .active
      subscription.autoRenewEnabled = true
      subscription.cancellation = nil
      save(subscription)
      return nil
    }
    let newToken = replace(&subscription, with: productId, startMs: core.nowMs, core: &core)
    save(subscription)
    return newToken
  }

  static let replacementModes = [
    "WITH_TIME_PRORATION", "CHARGE_PRORATED_PRICE", "CHARGE_FULL_PRICE", "WITHOUT_PRORATION", "DEFERRED",
  ]

  /// A new token for `productId` from `startMs`, linked to `old`; `old` is canceled by replacement
  /// and its access ends at `startMs`.
  mutating func replace(
    _ old: inout GoogleSubscriptionPurchase, with productId: String, startMs: Int64, core: inout SimCore
  ) -> String {
    let product = config.subscription(productId)
    let orderId = Self.newOrderId(core: &core)
    var new = GoogleSubscriptionPurchase(
      purchaseToken: Self.newPurchaseToken(), packageName: old.packageName, productId: productId,
      basePlanId: product?.basePlanId ?? old.basePlanId, offerId: nil, offerTags: product?.offerTags ?? [],
      offerPhase: .basePrice, startTimeMs: startMs,
      expiryTimeMs: startMs + (product?.periodMs ?? 30 * SimDuration.dayMs),
      recurringPriceMicros: product?.priceMicros ?? old.recurringPriceMicros, orderIdBase: orderId,
      orderIds: [orderId])
    new.linkedPurchaseToken = old.purchaseToken
    new.obfuscatedExternalAccountId = old.obfuscatedExternalAccountId
    new.obfuscatedExternalProfileId = old.obfuscatedExternalProfileId
    new.testPurchase = old.testPurchase
    new.failRenewals = old.failRenewals
    scheduleExpiry(&new, core: &core)
    scheduleAcknowledgementDeadline(new.purchaseToken, core: &core)
    save(new)

    old.state = .canceled
    old.cancellation = .replacement
    old.cancelTimeMs = core.nowMs
    old.autoRenewEnabled = false
    old.deferredReplacementProductId = nil
    old.scheduledPauseMs = nil
    old.expiryTimeMs = min(old.expiryTimeMs, startMs)
    old.endedAtMs = startMs
    old.replacedByToken = new.purchaseToken
    old.epoch += 1
    notify(.canceled, old, core: &core)
    notify(.purchased, new, core: &core)
    return new.purchaseToken
  }
}
