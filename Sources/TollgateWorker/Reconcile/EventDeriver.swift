import TollgateCore

/// Names what changed between the last verified state of a subscription and the new one, as the
/// outbound events a company's backends subscribe to.
enum EventDeriver {
  static func events(
    previous: StoredSubscription?, now evaluation: SubscriptionEvaluation, userId: String?, atMs: Int64
  ) -> [WorkerEvent] {
    func event(_ kind: String, _ detail: String? = nil) -> WorkerEvent {
      WorkerEvent(
        userId: userId, kind: kind, store: evaluation.store, purchaseId: evaluation.purchaseId,
        productId: evaluation.productId, state: evaluation.state, atMs: atMs, detail: detail)
    }
    guard let previous else {
      switch evaluation.state {
      case .trial: return [event("purchased", "trial")]
      case .revoked: return [event("refunded")]
      case .expired: return [event(evaluation.reason == .replaced ? "replaced" : "expired")]
      default: return [event("purchased")]
      }
    }
    var events: [WorkerEvent] = []
    let entitledNow = evaluation.state.isEntitledByDefault
    if previous.productId != evaluation.productId && entitledNow {
      events.append(event("upgraded", "\(previous.productId) → \(evaluation.productId)"))
    } else if previous.state == .trial && (evaluation.state == .active || evaluation.state == .introOffer) {
      events.append(event("trial_converted"))
    } else if evaluation.expiresAtMs > previous.expiresAtMs && entitledNow && previous.state == evaluation.state {
      events.append(event("renewed"))
    }
    if previous.willRenew && !evaluation.willRenew && entitledNow { events.append(event("opted_out")) }
    if !previous.willRenew && evaluation.willRenew && entitledNow { events.append(event("opted_in")) }
    if previous.state != evaluation.state {
      switch evaluation.state {
      case .gracePeriod: events.append(event("grace_started"))
      case .billingRetry, .onHold: events.append(event("billing_issue"))
      case .paused: events.append(event("paused"))
      case .expired:
        // Replaced by another purchase (an upgrade's new token): over, but nobody lost access.
        events.append(event(evaluation.reason == .replaced ? "replaced" : "expired"))
      case .revoked:
        events.append(event(evaluation.reason == .familySharingRevoked ? "revoked" : "refunded"))
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
}
