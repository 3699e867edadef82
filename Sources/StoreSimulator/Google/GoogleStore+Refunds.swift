/// Refunds, chargebacks and revocations (each revoked one listed by `voidedpurchases.list` and
/// announced by a `voidedPurchaseNotification`), and price changes with the user's consent.
extension GoogleStore {
  /// Refunds the subscription's latest order. `revoke` voids it: access ends now (EXPIRED,
  /// SUBSCRIPTION_REVOKED), the order is listed by voidedpurchases.list and a
  /// `voidedPurchaseNotification` is pushed. Without it the user keeps the subscription and
  /// nothing shows: Google lists only revoked orders ("If a developer refunds a purchase without
  /// setting the revoke option, the order will not be returned by the API"), and notifies only those.
  /// - Parameters:
  ///   - reason: `voidedReason` (0 other … 7 chargeback).
  ///   - source: `voidedSource` (0 user, 1 developer, 2 Google).
  mutating func refundSubscription(_ token: String, reason: Int, source: Int, revoke: Bool, core: inout SimCore) {
    guard revoke, var subscription = subscriptions[token] else { return }
    let entry = GoogleVoidedPurchase(
      packageName: subscription.packageName, purchaseToken: token, orderId: subscription.latestOrderId,
      purchaseTimeMs: subscription.startTimeMs, voidedTimeMs: core.nowMs, voidedSource: source, voidedReason: reason,
      productType: 1)
    voided.append(entry)
    if subscription.state != .expired {
      expire(
        &subscription, cancellation: source == 1 ? .developer : .system, core: &core, notification: .revoked)
      save(subscription)
    }
    notifyVoided(entry, core: &core)
  }

  /// Voids a one-time purchase: `purchaseState` 1 (canceled), access ends.
  mutating func refundProduct(_ token: String, reason: Int, source: Int, core: inout SimCore) {
    guard var product = products[token] else { return }
    product.purchaseState = 1
    product.endedAtMs = core.nowMs
    save(product)
    let entry = GoogleVoidedPurchase(
      packageName: product.packageName, purchaseToken: token, orderId: product.orderId,
      purchaseTimeMs: product.purchaseTimeMs, voidedTimeMs: core.nowMs, voidedSource: source, voidedReason: reason,
      productType: 2)
    voided.append(entry)
    notifyVoided(entry, core: &core)
  }

  /// A refund, chargeback (reason 7) or revocation of any purchase token.
  mutating func refund(_ token: String, reason: Int, source: Int, revoke: Bool, core: inout SimCore)
    throws(StoreSimulatorError)
  {
    guard (0...7).contains(reason), (0...2).contains(source) else {
      throw .invalid("voidedReason is 0…7 and voidedSource 0…2")
    }
    if subscriptions[token] != nil {
      refundSubscription(token, reason: reason, source: source, revoke: revoke, core: &core)
    } else if let product = products[token] {
      guard product.purchaseState == 0 else { throw .conflict("the purchase is already canceled") }
      refundProduct(token, reason: reason, source: source, core: &core)
    } else {
      throw .notFound("no Google purchase with that token")
    }
  }

  /// Announces a price change at the next renewal after `noticeMs`. An increase needs the
  /// user's consent by then (OUTSTANDING, `priceStepUpConsentDetails` PENDING), else the
  /// subscription is canceled at that renewal and expires; a decrease just applies.
  mutating func changePrice(_ token: String, newPriceMicros: Int64, noticeMs: Int64, core: inout SimCore)
    throws(StoreSimulatorError)
  {
    var subscription = try subscription(token)
    guard subscription.state == .active else { throw .conflict("only an active subscription's price can change") }
    guard newPriceMicros > 0, newPriceMicros != subscription.recurringPriceMicros else {
      throw .invalid("give a new, positive priceMicros")
    }
    let increase = newPriceMicros > subscription.recurringPriceMicros
    let product = config.subscription(subscription.productId)
    var charge = subscription.expiryTimeMs
    let period = product?.periodMs ?? 30 * SimDuration.dayMs
    while charge < core.nowMs + noticeMs { charge += period }
    subscription.priceChange = GooglePriceChange(
      newPriceMicros: newPriceMicros, mode: increase ? "PRICE_INCREASE" : "PRICE_DECREASE",
      state: increase ? "OUTSTANDING" : "CONFIRMED", expectedChargeTimeMs: charge,
      consentDeadlineMs: increase ? charge : nil)
    save(subscription)
    notify(.priceChangeUpdated, subscription, core: &core)
  }

  /// The user agrees to a price increase (the step-up consent is confirmed).
  mutating func confirmPriceChange(_ token: String, core: inout SimCore) throws(StoreSimulatorError) {
    var subscription = try subscription(token)
    guard var change = subscription.priceChange, change.state == "OUTSTANDING" else {
      throw .conflict("no price increase waits for consent")
    }
    change.state = "CONFIRMED"
    subscription.priceChange = change
    save(subscription)
    notify(.priceChangeConfirmed, subscription, core: &core)
    notify(.priceStepUpConsentUpdated, subscription, core: &core)
  }
}
