import Foundation
import Logging
import TollgateCore

/// Turns one inbox item (a submitted purchase or a stored notification) into verified state, or
/// puts it back for later when the store could not be asked. Never changes state on a failure;
/// only a final answer from the store (`final`, `gone`) rejects an item, or a purchase the store
/// still does not know once the item is older than its window (`notFoundIsFinal`).
struct ItemProcessor: Sendable {
  let gateways: StoreGateways
  let refresher: ChainRefresher
  let storage: any WorkerStorage
  let backoff: Backoff
  let notFoundRetryWindowMs: Int64
  let stats: WorkerStats
  let nowMs: @Sendable () -> Int64
  let logger: Logger

  func process(_ item: InboxItem) async {
    do {
      switch item.kind {
      case .purchase: try await processPurchase(item)
      case .notification: try await processNotification(item)
      }
      stats.verified()
    } catch let failure as StoreFailure {
      await handle(failure, item: item)
    } catch let error as WorkerLeaseError {
      // Another worker took the lease over: nothing was written; the item is theirs now.
      logger.notice("an inbox item was not written: \(error)", metadata: ["inbox.id": "\(item.id)"])
    } catch {
      // Storage trouble: the item stays leased and comes back when the lease ends.
      logger.error("processing an inbox item failed", metadata: ["inbox.id": "\(item.id)", "error": "\(error)"])
    }
  }

  private func processPurchase(_ item: InboxItem) async throws {
    let submission: PurchaseSubmission
    do {
      submission = try JSONDecoder().decode(PurchaseSubmission.self, from: Data(item.payload))
    } catch {
      throw StoreFailure.final("the stored submission cannot be read")
    }
    guard let gateway = gateways[submission.store] else {
      throw StoreFailure.final("\(submission.store.rawValue) purchases are not verified by this version yet")
    }
    let reference = try await gateway.identify(submission)
    try await refresher.refresh(
      reference, claim: Claim(submission, evidence: reference.claimEvidence), completes: item.id, reason: "purchase")
  }

  private func processNotification(_ item: InboxItem) async throws {
    guard let gateway = gateways.gateway(route: item.store) else {
      throw StoreFailure.final("unknown notification route \(item.store)")
    }
    switch try await gateway.verifyNotification(item.payload, route: item.store) {
    case .informational(let outcome):
      try await storage.finishInbox(id: item.id, state: .verified, outcome: outcome, nowMs: nowMs())
    case .chainChanged(let reference, let reason, let signed):
      // The notification says something changed; what changed is read from the store itself.
      do {
        try await refresher.refresh(reference, claim: nil, completes: item.id, reason: reason)
      } catch let failure as StoreFailure where failure.kind == .transient || failure.kind == .needsOperator {
        // The store cannot be read: what the notification's signed payloads prove is applied now,
        // and the item is retried so that the store's full answer confirms it.
        if let signed { try await refresher.applyNotificationEvidence(signed, reason: reason) }
        throw failure
      }
    }
  }

  private func handle(_ failure: StoreFailure, item: InboxItem) async {
    let now = nowMs()
    do {
      if failure.refuses || (failure.kind == .notFound && notFoundIsFinal(item, nowMs: now)) {
        stats.rejected()
        logger.notice("inbox item rejected", metadata: ["inbox.id": "\(item.id)", "reason": "\(failure)"])
        try await storage.finishInbox(id: item.id, state: .rejected, outcome: failure.message, nowMs: now)
        return
      }
      stats.storeFailure(failure, store: store(of: item), atMs: now)
      let delay = backoff.delayMs(attempt: item.attempts, retryAfterMs: failure.retryAfterMs)
      let metadata: Logger.Metadata = [
        "inbox.id": "\(item.id)", "error": "\(failure)", "error.kind": "\(failure.kind)", "retry.in_ms": "\(delay)",
        "retry.attempt": "\(item.attempts)",
      ]
      if failure.kind == .needsOperator {
        logger.error("the store refused our credentials or configuration; the item stays pending", metadata: metadata)
      } else if failure.kind == .notFound {
        logger.notice("the store does not know this purchase yet; will retry", metadata: metadata)
      } else {
        logger.warning("store unavailable; will retry", metadata: metadata)
      }
      try await storage.retryInbox(id: item.id, atMs: now + delay, error: failure.message)
    } catch let error as WorkerLeaseError {
      logger.notice("an inbox item's outcome was not written: \(error)", metadata: ["inbox.id": "\(item.id)"])
    } catch {
      logger.error("recording an inbox outcome failed", metadata: ["inbox.id": "\(item.id)", "error": "\(error)"])
    }
  }

  /// Whether "not found" is the store's last word on `item`: the item is older than its window
  /// and the store is not failing now (during an outage, a 404 is not a no). A notification was
  /// verified when it arrived (the store signed or authenticated it), so its purchase exists: its
  /// window is at least `notificationNotFoundWindowMs`, long enough to outlast a 404 storm.
  private func notFoundIsFinal(_ item: InboxItem, nowMs now: Int64) -> Bool {
    if let store = store(of: item), refresher.health.failingStores.contains(store) { return false }
    let window =
      item.kind == .notification ? max(notFoundRetryWindowMs, Self.notificationNotFoundWindowMs) : notFoundRetryWindowMs
    return now - item.receivedAtMs >= window
  }

  /// How long an authentic notification's purchase may be "not found" before the item is
  /// rejected (the default outage leeway).
  static let notificationNotFoundWindowMs: Int64 = 7 * 86_400_000

  /// The store an item concerns, for metrics.
  private func store(of item: InboxItem) -> Store? {
    switch item.kind {
    case .notification: gateways.gateway(route: item.store)?.store
    case .purchase: Store(rawValue: item.store)
    }
  }
}
