/// What happens to a subscription on the virtual clock: term ends (renewal, expiry, a failed
/// payment), grace and billing-retry ends.
extension AmazonStore {
  /// Runs one due event; returns a short account ("stale" for an outdated one).
  mutating func fire(_ event: ScheduledEvent, core: inout SimCore) -> String {
    guard var subscription = subscriptions[event.subject], subscription.epoch == event.epoch else { return "stale" }
    defer { save(subscription) }
    switch event.kind {
    case "termEnd":
      guard subscription.state == .active else { return "stale" }
      if !subscription.autoRenewing {
        end(&subscription, atMs: subscription.termEndMs, reason: 1, notification: .subscriptionExpired, core: &core)
        return "expired (auto-renew off)"
      }
      if subscription.failRenewals { return paymentFailed(&subscription, core: &core) }
      renew(&subscription, fromMs: subscription.termEndMs, core: &core)
      return "renewed as \(subscription.currentReceiptId)"
    case "graceEnd":
      guard subscription.state == .inGracePeriod else { return "stale" }
      let current = mutateCurrent(subscription) { _ in }
      notify(.subscriptionOutOfGracePeriod, current, core: &core)
      guard config.billingRetryAfterGraceMs > 0 else {
        end(&subscription, atMs: core.nowMs, reason: 2, notification: .subscriptionExpired, core: &core)
        return "out of grace: cancelled (payment never recovered)"
      }
      subscription.state = .billingRetry
      subscription.epoch += 1
      schedule("retryEnd", at: core.nowMs + config.billingRetryAfterGraceMs, subscription, core: &core)
      return "out of grace: billing retry"
    case "retryEnd":
      guard subscription.state == .billingRetry else { return "stale" }
      end(&subscription, atMs: core.nowMs, reason: 2, notification: .subscriptionExpired, core: &core)
      return "billing retry over: cancelled"
    default:
      return "unknown event"
    }
  }

  /// A renewal failed at the term end: grace (`gracePeriodEndDate` on the current receipt),
  /// billing retry, or the end (`cancelReason` 2).
  private mutating func paymentFailed(_ subscription: inout AmazonSubscription, core: inout SimCore) -> String {
    let graceMs = config.subscription(termSku: subscription.termSku)?.gracePeriodMs ?? 0
    if graceMs > 0 {
      let graceEnd = subscription.termEndMs + graceMs
      subscription.state = .inGracePeriod
      subscription.graceEndMs = graceEnd
      subscription.epoch += 1
      schedule("graceEnd", at: graceEnd, subscription, core: &core)
      let receipt = mutateCurrent(subscription) { $0.gracePeriodEndDateMs = graceEnd }
      notify(.subscriptionInGracePeriod, receipt, core: &core)
      return "payment failed: grace period until \(graceEnd)"
    }
    if config.billingRetryAfterGraceMs > 0 {
      subscription.state = .billingRetry
      subscription.epoch += 1
      schedule("retryEnd", at: core.nowMs + config.billingRetryAfterGraceMs, subscription, core: &core)
      return "payment failed: billing retry"
    }
    end(&subscription, atMs: subscription.termEndMs, reason: 2, notification: .subscriptionExpired, core: &core)
    return "payment failed: cancelled"
  }

  /// A new term from `fromMs` (in the deferred tier, if one is pending): a new receipt with
  /// `newReceiptPerTerm`, else the current receipt's `renewalDate` moves on.
  mutating func renew(_ subscription: inout AmazonSubscription, fromMs: Int64, core: inout SimCore) {
    let previous = receipts[subscription.currentReceiptId]
    let wasTrial = previous?.freeTrialEndDateMs == subscription.termEndMs
    let sku = subscription.deferredSku ?? subscription.termSku
    let product = config.subscription(termSku: sku)
    let endMs = fromMs + (product?.periodMs ?? 30 * SimDuration.dayMs)
    let receipt: AmazonReceipt
    if config.newReceiptPerTerm || subscription.deferredSku != nil, var previous {
      previous.endedAtMs = fromMs
      save(previous)
      receipt = newTerm(subscription, product: product, sku: sku, fromMs: fromMs, endMs: endMs, core: &core)
      save(receipt)
      subscription.receiptIds.append(receipt.receiptId)
    } else {
      receipt = mutateCurrent(subscription) {
        $0.renewalDateMs = endMs
        $0.gracePeriodEndDateMs = nil
      }
    }
    subscription.termSku = sku
    subscription.deferredSku = nil
    subscription.termEndMs = endMs
    subscription.state = .active
    subscription.graceEndMs = nil
    scheduleTermEnd(&subscription, core: &core)
    notify(wasTrial ? .subscriptionConvertedFreeTrialToPaid : .subscriptionRenewed, receipt, core: &core)
  }

  /// A fresh receipt for one term of `subscription`.
  func newTerm(
    _ subscription: AmazonSubscription, product: StoreSimulator.AmazonSubscriptionProduct?, sku: String, fromMs: Int64,
    endMs: Int64, core: inout SimCore
  ) -> AmazonReceipt {
    AmazonReceipt(
      receiptId: Self.newReceiptId(.subscription, core: &core), appPackageName: subscription.appPackageName,
      userId: subscription.userId, productType: .subscription, productId: sku,
      parentProductId: product?.parentProductId, term: product?.term, termSku: sku, purchaseDateMs: fromMs,
      renewalDateMs: endMs, autoRenewing: subscription.autoRenewing, testTransaction: subscription.testTransaction,
      betaProduct: subscription.betaProduct, quantity: 1, subscriptionId: subscription.subscriptionId)
  }

  /// The end of a subscription: its current receipt gets `cancelDate` = `atMs` and
  /// `cancelReason`, auto-renew stops, pending events are dropped.
  mutating func end(
    _ subscription: inout AmazonSubscription, atMs: Int64, reason: Int, notification: AmazonNotificationType,
    core: inout SimCore
  ) {
    subscription.state = .ended
    subscription.autoRenewing = false
    subscription.epoch += 1
    let receipt = mutateCurrent(subscription) {
      $0.cancelDateMs = atMs
      $0.cancelReason = reason
      $0.autoRenewing = false
      $0.endedAtMs = atMs
    }
    save(subscription)
    notify(notification, receipt, core: &core)
  }

  /// Changes the subscription's current receipt and returns it.
  @discardableResult
  mutating func mutateCurrent(_ subscription: AmazonSubscription, _ change: (inout AmazonReceipt) -> Void)
    -> AmazonReceipt
  {
    guard var receipt = receipts[subscription.currentReceiptId] else {
      preconditionFailure("a subscription without its current receipt")
    }
    change(&receipt)
    save(receipt)
    return receipt
  }
}
