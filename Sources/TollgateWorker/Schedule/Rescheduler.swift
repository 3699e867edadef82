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

  /// Makes the claimed check `check`. Its postponement carries the claim's token: when the
  /// claim was lost meanwhile (its lease ended and another worker claimed the check, or another
  /// write of the chain ended it), nothing is written and the check is left to whoever holds it.
  func reverify(_ check: DueCheck) async {
    let subscription = check.subscription
    // The check fell due no later than now: a write of the chain from a read after this covers it.
    let dueByMs = nowMs()
    // The claim this check still holds: an apply of our own (the outage policy below) ends it.
    var claimToken: Int64? = check.claimToken
    guard let reference = gateways[subscription.store]?.reference(for: subscription) else {
      logger.error(
        "a subscription's app is no longer configured",
        metadata: ["store.name": "\(subscription.store.rawValue)", "app.id": "\(subscription.appId)"])
      await postpone(
        subscription, claimToken: claimToken, untilMs: nowMs() + 86_400_000, failures: subscription.failures + 1)
      return
    }
    if refresher.health.failingStores.contains(subscription.store) {
      do {
        // Until the claim's lease ends (`nextCheckAtMs`), so nobody else checks it meanwhile.
        if try await refresher.holdDuringOutage(
          subscription, nextCheckAtMs: subscription.nextCheckAtMs ?? nowMs(), failures: subscription.failures)
        {
          claimToken = nil
        }
      } catch {
        logger.error("writing the outage policy's answer failed", metadata: ["error": "\(error)"])
      }
    }
    do {
      try await refresher.refresh(
        reference, claim: nil, completes: nil, reason: "scheduled check", arrivedAtMs: dueByMs)
    } catch let failure as StoreFailure where failure.kind == .gone {
      stats.storeFailure(failure, store: subscription.store, atMs: nowMs())
      do {
        try await refresher.stopChecks(subscription, because: failure)
      } catch {
        logger.error("writing stopped checks failed", metadata: ["error": "\(error)"])
      }
    } catch let failure as StoreFailure {
      stats.storeFailure(failure, store: subscription.store, atMs: nowMs())
      stats.storeRetry(failure, store: subscription.store)
      let failures = subscription.failures + 1
      let delay = backoff.delayMs(attempt: failures, retryAfterMs: failure.retryAfterMs)
      logger.warning(
        "re-verification failed; the verified state stays",
        metadata: [
          "store.name": "\(subscription.store.rawValue)",
          "subscription.purchase_id": "\(subscription.store.loggable(subscription.purchaseId))",
          "error": "\(failure)", "error.kind": "\(failure.kind)", "retry.in_ms": "\(delay)",
        ])
      guard await postpone(subscription, claimToken: claimToken, untilMs: nowMs() + delay, failures: failures) else {
        return
      }
      if failure.countsAsOutage {
        do {
          // Not the buyer's doing: a renewing subscriber keeps access while the store is out.
          try await refresher.holdDuringOutage(subscription, nextCheckAtMs: nowMs() + delay, failures: failures)
        } catch {
          logger.error("writing the outage policy's answer failed", metadata: ["error": "\(error)"])
        }
      }
    } catch let conflict as StorageConflict where conflict.kind == .chainChanged {
      // Other writes of the chain kept landing first (`ChainRefresher.refresh` tried each time):
      // not the store's trouble, so no failure is counted; the check is made again soon.
      let delay = backoff.delayMs(attempt: 1, retryAfterMs: nil)
      logger.notice(
        "other writes of the chain kept landing first; the check is made again soon",
        metadata: [
          "store.name": "\(subscription.store.rawValue)",
          "subscription.purchase_id": "\(subscription.store.loggable(subscription.purchaseId))",
          "retry.in_ms": "\(delay)",
        ])
      await postpone(subscription, claimToken: claimToken, untilMs: nowMs() + delay, failures: subscription.failures)
    } catch {
      logger.error("writing a re-verification failed", metadata: ["error": "\(error)"])
    }
  }

  /// Postpones the check under `claimToken`; false when it was not written (the claim was lost:
  /// the check is its new holder's; or storage failed).
  @discardableResult
  private func postpone(_ subscription: StoredSubscription, claimToken: Int64?, untilMs: Int64, failures: Int) async
    -> Bool
  {
    do {
      try await storage.postponeCheck(
        store: subscription.store, purchaseId: subscription.purchaseId, claimToken: claimToken, untilMs: untilMs,
        failures: failures)
      return true
    } catch let conflict as StorageConflict where conflict.kind == .claimLost {
      logger.notice(
        "the check's claim was lost; whoever holds it now makes it",
        metadata: [
          "store.name": "\(subscription.store.rawValue)",
          "subscription.purchase_id": "\(subscription.store.loggable(subscription.purchaseId))",
        ])
    } catch {
      logger.error("writing a postponed re-verification failed", metadata: ["error": "\(error)"])
    }
    return false
  }
}
