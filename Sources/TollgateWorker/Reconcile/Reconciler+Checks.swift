import Logging
import TollgateCore

extension Reconciler {
  /// The store no longer has the chain's purchase (`StoreFailure.Kind.gone`): its scheduled checks
  /// stop for good. The last verified state stays exactly as it was (never revoked because of
  /// this), the chain is not scheduled again, and why is kept with its evidence for `explain`. A
  /// notification or a submission for it still reads it, and a successful read replaces the note.
  func stopChecks(_ stored: StoredSubscription, because failure: StoreFailure) async throws {
    let now = nowMs()
    var subscription = stored
    subscription.nextCheckAtMs = nil
    subscription.failures = 0
    subscription.evidence.checksStopped = VerificationEvidence.ChecksStopped(atMs: now, reason: failure.message)
    try await storage.apply(
      SubscriptionChange(
        subscription: subscription, transactions: [], events: [], completes: nil, alsoRecompute: nil,
        reason: "checks stopped", nowMs: now, expectedVersion: stored.version),
      recompute: evaluator.recompute(nowMs: now))
    logger.notice(
      "the store no longer has this purchase; its scheduled checks stop and its last verified state stays",
      metadata: [
        "store.name": "\(stored.store.rawValue)",
        "subscription.purchase_id": "\(stored.store.loggable(stored.purchaseId))",
        "subscription.state": "\(stored.state.rawValue)", "error": "\(failure)",
      ])
  }
}
