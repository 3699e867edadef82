import Logging
import TollgateCore

/// Acknowledges a verified, bound purchase the store waits on (Google Play refunds a purchase
/// left unacknowledged for 3 days). A failed acknowledgement never changes anyone's access: the
/// chain's check is brought forward with backoff, and the next read acknowledges it again while
/// the store still says it is pending.
struct PurchaseAcknowledger: Sendable {
  let storage: any WorkerStorage
  let pending: PendingAcknowledgements
  let backoff: Backoff
  let nowMs: @Sendable () -> Int64
  let logger: Logger

  func afterVerification(_ chain: VerifiedChain, outcome: Reconciler.Outcome, gateway: any StoreGateway) async {
    pending.observed(chain)
    // Only a purchase someone owns has been delivered; one nobody claimed yet waits for its buyer.
    guard let acknowledgement = chain.acknowledgement, outcome.ownerUserId != nil else { return }
    let metadata: Logger.Metadata = [
      "store.name": "\(chain.store.rawValue)", "subscription.purchase_id": "\(chain.store.loggable(chain.purchaseId))",
      "acknowledgement.deadline_ms": "\(acknowledgement.deadlineMs)",
    ]
    do throws(StoreFailure) {
      try await gateway.acknowledge(chain)
      pending.acknowledged(chain)
      logger.info("purchase acknowledged", metadata: metadata)
    } catch {
      let attempts = pending.failed(chain)
      let now = nowMs()
      // Not later than an hour before the deadline while that is still ahead, so a last try
      // lands in time.
      let backoffAt = now + backoff.delayMs(attempt: attempts, retryAfterMs: error.retryAfterMs)
      let latest = acknowledgement.deadlineMs - 3_600_000
      let retryAt = latest > now + 60_000 ? min(backoffAt, latest) : backoffAt
      var failure = metadata
      failure["error"] = "\(error)"
      failure["retry.at_ms"] = "\(retryAt)"
      logger.warning("acknowledging a purchase failed; will try again", metadata: failure)
      do {
        if let stored = try await storage.subscription(store: chain.store, purchaseId: chain.purchaseId),
          stored.nextCheckAtMs.map({ $0 > retryAt }) ?? true
        {
          try await storage.postponeCheck(
            store: chain.store, purchaseId: chain.purchaseId, claimToken: nil, untilMs: retryAt,
            failures: stored.failures)
        }
      } catch {
        logger.error("scheduling an acknowledgement retry failed", metadata: ["error": "\(error)"])
      }
    }
  }
}
