import TollgateCore

/// Names what changed between the last verified state of a subscription and the new one, as the
/// outbound events a company's backends subscribe to (`WorkerEvent.kinds`, docs/webhooks.md).
///
/// The story each listener reads is the same for every store:
/// - `purchased` is a new purchase only; a plan change is one `product_changed` with its direction
///   (by the catalog's group levels), its products and when it takes effect, whether the store
///   keeps the chain (Apple) or issues a new purchase for it (Google's linked token, an Amazon
///   receipt of another tier); the purchase it replaced ends without an event of its own.
/// - a period the store takes back is one `refunded` or `revoked` with its reason, once, even when
///   it is not the period that grants access now (a refund of an older renewal).
/// - a free trial's first paid period is one `trial_converted`, when the store bills it.
struct EventDeriver: Sendable {
  let groups: [SubscriptionGroup]

  init(groups: [SubscriptionGroup] = []) {
    self.groups = groups
  }

  /// - Parameters:
  ///   - previous: the chain as stored before (nil: seen for the first time, or bound to a user
  ///     for the first time).
  ///   - evaluation: the chain's new state.
  ///   - history: the chain's new (merged) history.
  ///   - replacing: the purchase this chain replaced, when it is a new purchase for a plan change
  ///     (`replacedChain`); nil otherwise.
  func events(
    previous: StoredSubscription?, now evaluation: SubscriptionEvaluation, history: SubscriptionHistory,
    userId: String?, atMs: Int64, replacing: StoredSubscription? = nil
  ) -> [WorkerEvent] {
    let base = Self.details(of: evaluation, history: history)
    func event(_ kind: String, _ detail: String? = nil, _ details: EventDetails? = nil) -> WorkerEvent {
      WorkerEvent(
        userId: userId, kind: kind, store: evaluation.store, purchaseId: evaluation.purchaseId,
        productId: evaluation.productId, state: evaluation.state, atMs: atMs, detail: detail,
        details: details ?? base)
    }
    let entitledNow = evaluation.state.isEntitledByDefault
    guard let previous else {
      switch replacing.flatMap({ replacement(of: $0, by: evaluation, history: history) }) {
      case .productChange(let change):
        var details = base
        details.productChange = change
        return [event("product_changed", "\(change.fromProductId) → \(change.toProductId)", details)]
      case .renewal:
        // The same product in a new purchase (an Amazon receipt per term), or the change it makes
        // was announced before (a deferred one): a renewal.
        return entitledNow ? [event("renewed")] : []
      case nil:
        break
      }
      switch evaluation.state {
      case .trial: return [event("purchased", "trial")]
      case .revoked: return [revocation(evaluation.reason, base, event)]
      case .expired: return evaluation.reason == .replaced ? [] : [event("expired")]
      default: return [event("purchased")]
      }
    }
    var events: [WorkerEvent] = []
    // Periods the store took back since the last verification, each told once.
    let taken = Self.newlyRevoked(previous: previous.history, now: history)
    for transaction in taken {
      events.append(revocation(Self.reason(of: transaction), Self.details(base, of: transaction), event))
    }
    if previous.productId != evaluation.productId && entitledNow {
      if Self.pendingProduct(previous) == evaluation.productId {
        // Announced when the store first reported it: now it is simply the renewal.
        events.append(event("renewed"))
      } else {
        var details = base
        details.productChange = EventProductChange(
          direction: direction(from: previous.productId, to: evaluation.productId, store: evaluation.store),
          fromProductId: previous.productId, toProductId: evaluation.productId,
          effectiveAtMs: Self.start(of: evaluation, in: history) ?? atMs)
        events.append(event("product_changed", "\(previous.productId) → \(evaluation.productId)", details))
      }
    } else if previous.state == .trial && (evaluation.state == .active || evaluation.state == .introOffer) {
      // The store bills the first paid period ahead of the trial's end (a day early): told then.
      if evaluation.expiresAtMs > previous.expiresAtMs { events.append(event("trial_converted")) }
    } else if previous.state == .trial && evaluation.state == .trial && evaluation.expiresAtMs > previous.expiresAtMs,
      let paid = Self.paidPeriod(after: previous.expiresAtMs, in: history)
    {
      events.append(event("trial_converted", nil, Self.details(base, of: paid)))
    } else if evaluation.expiresAtMs > previous.expiresAtMs && entitledNow && previous.state == evaluation.state {
      events.append(event("renewed"))
    }
    if previous.willRenew && !evaluation.willRenew && entitledNow { events.append(event("opted_out")) }
    if !previous.willRenew && evaluation.willRenew && entitledNow { events.append(event("opted_in")) }
    events += pendingChangeEvents(previous: previous, now: evaluation, base: base, event)
    if previous.state != evaluation.state {
      switch evaluation.state {
      case .gracePeriod: events.append(event("grace_started"))
      case .billingRetry, .onHold: events.append(event("billing_issue"))
      case .paused: events.append(event("paused"))
      case .expired:
        // Replaced by another purchase: its product_changed tells it. Cut short before the period's
        // end: the store took it back, and the refund or revocation says so when it is reported.
        let cutShort = evaluation.expiresAtMs < previous.expiresAtMs && previous.state.isEntitledByDefault
        if evaluation.reason != .replaced && !cutShort { events.append(event("expired")) }
      case .revoked:
        if taken.isEmpty { events.append(revocation(evaluation.reason, base, event)) }
      case .active, .introOffer:
        if [.gracePeriod, .billingRetry, .onHold, .paused].contains(previous.state) {
          events.append(event("recovered"))
        } else if previous.state == .expired || previous.state == .revoked {
          events.append(event("purchased", "resubscribed"))
        }
      case .trial:
        break
      }
    }
    return events
  }

  /// `refunded`, or `revoked` for a revocation without a refund (a chargeback, a developer's
  /// revoke, Family Sharing stopped), with the reason in the details.
  private func revocation(
    _ reason: StateReason, _ details: EventDetails, _ event: (String, String?, EventDetails?) -> WorkerEvent
  ) -> WorkerEvent {
    var details = details
    details.reason = reason.rawValue
    return event(reason == .refunded ? "refunded" : "revoked", nil, details)
  }

  /// A product change announced for the next renewal (Apple's autoRenewProductId, Google's
  /// deferred replacement, Amazon's deferredSku), or one withdrawn before it took effect.
  private func pendingChangeEvents(
    previous: StoredSubscription, now evaluation: SubscriptionEvaluation, base: EventDetails,
    _ event: (String, String?, EventDetails?) -> WorkerEvent
  ) -> [WorkerEvent] {
    let before = Self.pendingProduct(previous)
    let after = evaluation.willRenew ? evaluation.pendingProductChange?.toProductId : nil
    guard before != after, previous.productId == evaluation.productId else { return [] }
    var details = base
    if let after {
      details.productChange = EventProductChange(
        direction: direction(from: evaluation.productId, to: after, store: evaluation.store),
        fromProductId: evaluation.productId,
        toProductId: after, effectiveAtMs: evaluation.expiresAtMs)
      return [event("product_changed", "\(evaluation.productId) → \(after) at the next renewal", details)]
    }
    guard let before, evaluation.willRenew else { return [] }
    details.productChange = EventProductChange(
      direction: direction(from: evaluation.productId, to: before, store: evaluation.store),
      fromProductId: evaluation.productId,
      toProductId: before, effectiveAtMs: evaluation.expiresAtMs)
    return [event("product_change_canceled", "\(evaluation.productId) stays", details)]
  }

  /// Upgrade, downgrade or crossgrade by the levels of the group that holds both products on
  /// `store`; a change to the same product (another base plan or term) is a crossgrade.
  func direction(from: String, to: String, store: Store) -> ProductChangeKind? {
    from == to ? .crossgrade : ProductChange(from: from, to: to, store: store, groups: groups).kind
  }
}
