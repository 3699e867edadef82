import Logging
import TollgateCore

/// Re-verifies subscriptions whose check is due (after an expiry, at a grace boundary, on the
/// slow sweep). A scheduled check never rejects or revokes anyone because a call failed:
/// - the store no longer has the purchase (`gone`: Google's 410, RVS past retention): the chain
///   keeps its last verified state and its checks stop for good (`Reconciler.stopChecks`);
/// - any other failure postpones the check with backoff; when it is not the buyer's doing (the
///   store's trouble, ours, or "not found" for a chain the store answered before) a renewing
///   subscriber keeps access under the outage policy meanwhile. While the store is already
///   failing, that policy is applied before the store is asked, so a call that hangs cannot
///   let access lapse while it waits.
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
    if refresher.health.failingStores.contains(subscription.store) {
      do {
        try await refresher.holdDuringOutage(
          subscription, nextCheckAtMs: subscription.nextCheckAtMs ?? nowMs(), failures: subscription.failures)
      } catch {
        logger.error("writing the outage policy's answer failed", metadata: ["error": "\(error)"])
      }
    }
    do {
      try await refresher.refresh(reference, claim: nil, completes: nil, reason: "scheduled check")
    } catch let failure as StoreFailure where failure.kind == .gone {
      stats.storeFailure(failure, store: subscription.store, atMs: nowMs())
      do {
        try await refresher.stopChecks(subscription, because: failure)
      } catch {
        logger.error("writing stopped checks failed", metadata: ["error": "\(error)"])
      }
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
        if failure.countsAsOutage {
          // Not the buyer's doing: a renewing subscriber keeps access while the store is out.
          try await refresher.holdDuringOutage(subscription, nextCheckAtMs: nowMs() + delay, failures: failures)
        }
      } catch {
        logger.error("writing a postponed re-verification failed", metadata: ["error": "\(error)"])
      }
    } catch {
      logger.error("writing a re-verification failed", metadata: ["error": "\(error)"])
    }
  }
}
