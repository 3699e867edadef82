import Logging
import TollgateCore

/// Re-verifies subscriptions whose check is due (after an expiry, at a grace boundary, on the
/// slow sweep). A failed store call postpones the check with backoff and changes nothing else,
/// whatever its kind: a scheduled check never rejects anyone.
struct Rescheduler: Sendable {
  let gateways: StoreGateways
  let refresher: ChainRefresher
  var reconciler: Reconciler { refresher.reconciler }
  let storage: any WorkerStorage
  let backoff: Backoff
  let stats: WorkerStats
  let nowMs: @Sendable () -> Int64
  let logger: Logger

  func reverify(_ subscription: StoredSubscription) async {
    guard let reference = gateways[subscription.store]?.reference(for: subscription) else {
      logger.error(
        "a subscription's app is no longer configured",
        metadata: ["store.name": "\(subscription.store.rawValue)", "app.id": "\(subscription.appId)"])
      try? await storage.postponeCheck(
        store: subscription.store, purchaseId: subscription.purchaseId, untilMs: nowMs() + 86_400_000,
        failures: subscription.failures + 1)
      return
    }
    do {
      try await refresher.refresh(reference, claim: nil, completes: nil, reason: "scheduled check")
    } catch let failure as StoreFailure {
      stats.storeFailure(failure, store: subscription.store, atMs: nowMs())
      let failures = subscription.failures + 1
      let delay = backoff.delayMs(attempt: failures, retryAfterMs: failure.retryAfterMs)
      logger.warning(
        "re-verification failed; the verified state stays",
        metadata: [
          "store.name": "\(subscription.store.rawValue)",
          "subscription.purchase_id": "\(subscription.store.loggable(subscription.purchaseId))",
          "error": "\(failure)", "error.kind": "\(failure.kind)", "retry.in_ms": "\(delay)",
        ])
      do {
        try await storage.postponeCheck(
          store: subscription.store, purchaseId: subscription.purchaseId, untilMs: nowMs() + delay, failures: failures)
        if failure.kind == .transient || failure.kind == .needsOperator {
          // Not the buyer's doing: a renewing subscriber keeps access while the store is out.
          try await reconciler.reevaluateDuringOutage(subscription, nextCheckAtMs: nowMs() + delay, failures: failures)
        }
      } catch {
        logger.error("writing a postponed re-verification failed", metadata: ["error": "\(error)"])
      }
    } catch {
      logger.error("writing a re-verification failed", metadata: ["error": "\(error)"])
    }
  }
}
