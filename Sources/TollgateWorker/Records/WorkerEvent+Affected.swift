import TollgateCore

extension WorkerEvent {
  /// The user's entitlements this event touched: those its purchase (or the purchase it replaced,
  /// or its grant) gave before or gives after, each as the user's best record now has it. Every
  /// storage writes this into the event's details when it stores the event (a webhook payload is
  /// the same whichever database the worker runs on).
  public func affectedEntitlements(
    before: [EntitlementRecord], after: [EntitlementRecord], nowMs: Int64
  ) -> [AffectedEntitlement] {
    var sources: Set<String> = ["\(store.rawValue):\(purchaseId)"]
    if let replaced = details.productChange?.fromPurchaseId {
      sources.insert("\(store.rawValue):\(replaced)")
    }
    var names = Set((before + after).filter { sources.contains($0.source) }.map(\.entitlement))
    if let grant = details.grant { names.insert(grant.entitlement) }
    return names.sorted().map { name in
      guard let best = after.filter({ $0.entitlement == name }).bestEvaluation(at: nowMs) else {
        return AffectedEntitlement(
          entitlement: name, active: false, state: nil, expiresAtMs: nil, accessEndsAtMs: nil, source: nil)
      }
      return AffectedEntitlement(
        entitlement: name, active: best.active, state: best.state, expiresAtMs: best.record.expiresAtMs,
        accessEndsAtMs: best.record.accessEndsAtMs, source: best.record.source)
    }
  }
}
