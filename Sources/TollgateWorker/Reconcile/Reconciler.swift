import Logging
import TollgateCore

/// Applies a verified chain: binds it to a user under the transfer policy, evaluates it, derives
/// events, schedules the next check and writes everything in one transaction.
struct Reconciler: Sendable {
  let storage: any WorkerStorage
  let catalog: ProductCatalog
  let settings: WorkerSettings
  let nowMs: @Sendable () -> Int64
  let logger: Logger

  struct Outcome: Sendable {
    var ownerUserId: String?
    var state: SubscriptionState
    /// Set when the claimant was refused under the transfer policy.
    var refusal: String?
  }

  /// - Parameters:
  ///   - observedAtMs: when the store was asked; the chain is evaluated at that moment.
  ///   - claimant: the user who submitted the purchase; nil for notifications and scheduled checks.
  ///   - completes: the inbox item this verification finishes.
  @discardableResult
  func apply(
    _ chain: VerifiedChain, observedAtMs now: Int64, claimant: String?, completes inboxId: Int64?, reason: String
  ) async throws -> Outcome {
    let existing = try await storage.subscription(store: chain.store, purchaseId: chain.purchaseId)
    let evaluation = catalog.evaluate(chain.history, at: now)
    var owner = existing?.userId
    var events: [WorkerEvent] = []
    var alsoRecompute: String?
    var refusal: String?

    if let claimant {
      if let current = owner, current != claimant {
        let decision = catalog.transferPolicy.decide(
          purchaseSource: chain.history.source, ownerUserId: current, claimantUserId: claimant,
          ownerHasAccess: evaluation.isEntitled, atMs: now)
        if decision.transferred {
          owner = claimant
          alsoRecompute = current
          events.append(
            WorkerEvent(
              userId: claimant, kind: "transferred", store: chain.store, purchaseId: chain.purchaseId,
              productId: evaluation.productId, state: evaluation.state, atMs: now,
              detail: "from \(current) under \(decision.policy.rawValue)"))
        } else {
          refusal = "this purchase is bound to another user (transfer policy \(decision.policy.rawValue))"
          events.append(
            WorkerEvent(
              userId: current, kind: "transfer_refused", store: chain.store, purchaseId: chain.purchaseId,
              productId: evaluation.productId, state: evaluation.state, atMs: now,
              detail: "claimed by \(claimant) under \(decision.policy.rawValue)"))
        }
      } else {
        owner = claimant
      }
    } else if owner == nil, settings.bindAppAccountToken, let token = chain.appAccountToken, !token.isEmpty {
      // A notification came before any submission; the app told the store who the buyer is.
      owner = token.lowercased()
    }

    // The first time a chain gets a user (a notification came first), that user has just bought it.
    let firstBinding = existing?.userId == nil && owner != nil
    events += EventDeriver.events(previous: firstBinding ? nil : existing, now: evaluation, userId: owner, atMs: now)
    let subscription = StoredSubscription(
      store: chain.store, purchaseId: chain.purchaseId, appId: chain.appId, userId: owner,
      history: chain.history, evidence: chain.evidence, state: evaluation.state, reason: evaluation.reason.rawValue,
      productId: evaluation.productId, willRenew: evaluation.willRenew, expiresAtMs: evaluation.expiresAtMs,
      accessEndsAtMs: evaluation.accessEndsAtMs, appAccountToken: chain.appAccountToken ?? existing?.appAccountToken,
      verifiedAtMs: now, nextCheckAtMs: CheckSchedule.next(after: evaluation, nowMs: now, settings: settings),
      failures: 0)
    let completion = inboxId.map { id in
      refusal.map { (id: id, state: SubmissionState.rejected, outcome: $0) }
        ?? (
          id: id, state: SubmissionState.verified,
          outcome: "\(evaluation.state.rawValue) until \(evaluation.accessEndsAtMs)"
        )
    }
    try await storage.apply(
      SubscriptionChange(
        subscription: subscription, transactions: chain.transactions, events: events, completes: completion,
        alsoRecompute: alsoRecompute, reason: reason, nowMs: now),
      recompute: Self.recompute(catalog: catalog, nowMs: now))
    logger.info(
      "subscription verified",
      metadata: [
        "store.name": "\(chain.store.rawValue)", "subscription.purchase_id": "\(chain.purchaseId)",
        "subscription.state": "\(evaluation.state.rawValue)", "events": "\(events.map(\.kind))",
      ])
    return Outcome(ownerUserId: owner, state: evaluation.state, refusal: refusal)
  }

  /// A user's records from all their subscriptions (each with its own verification time) and grants.
  static func recompute(catalog: ProductCatalog, nowMs: Int64) -> EntitlementRecompute {
    { userId, subscriptions, grants in
      let verifiedAt = Dictionary(subscriptions.map { ($0.history.source, $0.verifiedAtMs) }) { a, _ in a }
      let resolved = SubscriptionReplacements.resolve(subscriptions.map(\.history))
      let fromStores = resolved.flatMap { history in
        EntitlementMapping.records(
          userId: userId, subscription: catalog.evaluate(history, at: nowMs), config: catalog,
          verifiedAtMs: verifiedAt[history.source] ?? nowMs)
      }
      return fromStores + grants.map { $0.entitlementRecord(verifiedAtMs: $0.grantedAtMs) }
    }
  }
}
