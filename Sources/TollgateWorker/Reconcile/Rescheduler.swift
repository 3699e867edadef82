import Logging
import TollgateCore
import TollgateStorage

/// Re-verifies subscriptions whose check is due (after an expiry, at a grace boundary, on the
/// slow sweep). A failed store call postpones the check with backoff and changes nothing else.
struct Rescheduler: Sendable {
  let gateway: AppleGateway
  let refresher: ChainRefresher
  let storage: SQLiteWorkerStorage
  let backoff: Backoff
  let stats: WorkerStats
  let nowMs: @Sendable () -> Int64
  let logger: Logger

  func reverify(_ subscription: StoredSubscription) async {
    guard let app = gateway.app(bundleId: subscription.appId) else {
      logger.error("a subscription's app is no longer configured", metadata: ["app.id": "\(subscription.appId)"])
      try? await storage.postponeCheck(
        store: subscription.store, purchaseId: subscription.purchaseId, untilMs: nowMs() + 86_400_000,
        failures: subscription.failures + 1)
      return
    }
    do {
      try await refresher.refresh(
        app: app, transactionId: subscription.purchaseId, environment: subscription.history.environment, claimant: nil,
        completes: nil, reason: "scheduled check")
    } catch let failure as WorkerFailure {
      stats.storeFailure("\(failure)", atMs: nowMs())
      let failures = subscription.failures + 1
      var retryAfter: Int64?
      if case .store(let error) = failure { retryAfter = error.retryAfterMs }
      let delay = backoff.delayMs(attempt: failures, retryAfterMs: retryAfter)
      logger.warning(
        "re-verification failed; the verified state stays",
        metadata: ["apple.original_transaction_id": "\(subscription.purchaseId)", "error": "\(failure)", "retry.in_ms": "\(delay)"])
      try? await storage.postponeCheck(
        store: subscription.store, purchaseId: subscription.purchaseId, untilMs: nowMs() + delay, failures: failures)
    } catch {
      logger.error("writing a re-verification failed", metadata: ["error": "\(error)"])
    }
  }
}
