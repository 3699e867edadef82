import Foundation
import Logging
import TollgateCore

/// Turns one inbox item (a submitted purchase or a stored notification) into verified state, or
/// puts it back for later when the store could not be asked. Never changes state on a failure;
/// only a final answer from the store (`final`, `gone`) rejects an item, or a purchase the store
/// still does not know once the item is older than its window (`notFoundIsFinal`).
///
/// Every write that ends or retries the item carries its claim's fencing token
/// (`InboxItem.claimToken`). When the claim was lost (the lease ran out and another claim took the
/// item: another worker, or this one again) storage refuses the write (`StorageConflict.claimLost`)
/// and nothing lands: the item is dropped here, never retried nor counted as the store's trouble,
/// and its new holder finishes it.
struct ItemProcessor: Sendable {
  let gateways: StoreGateways
  let refresher: ChainRefresher
  let storage: any WorkerStorage
  let backoff: Backoff
  let notFoundRetryWindowMs: Int64
  let stats: WorkerStats
  let nowMs: @Sendable () -> Int64
  var logger: Logger

  /// Processes `item`; every line logged for it carries its `request_id` (`InboxItem.requestId`),
  /// and so do the events it causes (`ChainWork.requestId`).
  func process(_ item: InboxItem) async {
    var processor = self
    if let requestId = item.requestId { processor.logger[metadataKey: "request_id"] = "\(requestId)" }
    await processor.run(item)
  }

  private func run(_ item: InboxItem) async {
    let takenUpAtMs = nowMs()
    do {
      switch item.kind {
      case .purchase: try await processPurchase(item, takenUpAtMs: takenUpAtMs)
      case .notification: try await processNotification(item)
      }
      stats.verified()
    } catch let failure as StoreFailure {
      await handle(failure, item: item)
    } catch let conflict as StorageConflict where conflict.kind == .claimLost {
      dropLostClaim(conflict, item: item)
    } catch let conflict as StorageConflict where conflict.kind == .chainChanged {
      await retryAfterConflict(conflict, item: item)
    } catch let error as WorkerLeaseError {
      // Another worker took the lease over: nothing was written; the item is theirs now.
      logger.notice("an inbox item was not written: \(error)", metadata: ["inbox.id": "\(item.id)"])
    } catch {
      // Storage trouble: the item stays leased and comes back when the lease ends.
      logger.error("processing an inbox item failed", metadata: ["inbox.id": "\(item.id)", "error": "\(error)"])
    }
  }

  /// `takenUpAtMs`: when this worker took the item up, on its own clock. A submission's
  /// `receivedAtMs` is the `serve` replica's clock, which may run ahead of the workers' (another
  /// host); compared with another worker's read, it could make a read after the submission look
  /// older than it, and the store be asked again on a conflict (`ChainRefresher.answersFor`).
  private func processPurchase(_ item: InboxItem, takenUpAtMs: Int64) async throws {
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
      reference, claim: Claim(submission, evidence: reference.claimEvidence), completes: item.claim,
      reason: "purchase", arrivedAtMs: takenUpAtMs, requestId: item.requestId)
  }

  private func processNotification(_ item: InboxItem) async throws {
    guard let gateway = gateways.gateway(route: item.store) else {
      throw StoreFailure.final("unknown notification route \(item.store)")
    }
    switch try await gateway.verifyNotification(item.payload, route: item.store) {
    case .informational(let outcome):
      try await storage.finishInbox(
        id: item.id, claimToken: item.claimToken, state: .verified, outcome: outcome, nowMs: nowMs())
    case .chainChanged(let reference, let reason, let signed):
      // The notification says something changed; what changed is read from the store itself.
      do {
        try await refresher.refresh(
          reference, claim: nil, completes: item.claim, reason: reason, arrivedAtMs: item.receivedAtMs,
          requestId: item.requestId)
      } catch let failure as StoreFailure where failure.kind == .transient || failure.kind == .needsOperator {
        // The store cannot be read: what the notification's signed payloads prove is applied now,
        // and the item is retried so that the store's full answer confirms it.
        if let signed {
          try await refresher.applyNotificationEvidence(signed, reason: reason, requestId: item.requestId)
        }
        throw failure
      }
    }
  }

  private func handle(_ failure: StoreFailure, item: InboxItem) async {
    let now = nowMs()
    do {
      if failure.refuses || (failure.kind == .notFound && notFoundIsFinal(item, nowMs: now)) {
        try await storage.finishInbox(
          id: item.id, claimToken: item.claimToken, state: .rejected, outcome: failure.message, nowMs: now)
        stats.rejected()
        logger.notice("inbox item rejected", metadata: ["inbox.id": "\(item.id)", "reason": "\(failure)"])
        return
      }
      stats.storeFailure(failure, store: store(of: item), atMs: now)
      stats.storeRetry(failure, store: store(of: item))
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
      try await storage.retryInbox(id: item.id, claimToken: item.claimToken, atMs: now + delay, error: failure.message)
    } catch let conflict as StorageConflict where conflict.kind == .claimLost {
      dropLostClaim(conflict, item: item)
    } catch let error as WorkerLeaseError {
      logger.notice("an inbox item's outcome was not written: \(error)", metadata: ["inbox.id": "\(item.id)"])
    } catch {
      logger.error("recording an inbox outcome failed", metadata: ["inbox.id": "\(item.id)", "error": "\(error)"])
    }
  }

  /// The chain kept changing under this item's verification (`ChainRefresher` tried again each
  /// time): nothing was written, and the item is tried again shortly, under its claim. Not the
  /// store's trouble, so not counted as a store failure.
  private func retryAfterConflict(_ conflict: StorageConflict, item: InboxItem) async {
    let delay = backoff.delayMs(attempt: 1)
    logger.notice(
      "an inbox item's chain changed while it was verified; will retry",
      metadata: ["inbox.id": "\(item.id)", "reason": "\(conflict.message)", "retry.in_ms": "\(delay)"])
    do {
      try await storage.retryInbox(
        id: item.id, claimToken: item.claimToken, atMs: nowMs() + delay, error: conflict.description)
    } catch let conflict as StorageConflict where conflict.kind == .claimLost {
      dropLostClaim(conflict, item: item)
    } catch let error as WorkerLeaseError {
      logger.notice("an inbox item's outcome was not written: \(error)", metadata: ["inbox.id": "\(item.id)"])
    } catch {
      logger.error("recording an inbox outcome failed", metadata: ["inbox.id": "\(item.id)", "error": "\(error)"])
    }
  }

  /// The item's claim was lost: nothing this processing wrote landed, and the holder of the newer
  /// claim finishes the item. Logged (the item's id and why, never its payload) and dropped.
  private func dropLostClaim(_ conflict: StorageConflict, item: InboxItem) {
    logger.notice(
      "an inbox item's claim was lost; its new holder finishes it",
      metadata: ["inbox.id": "\(item.id)", "reason": "\(conflict.message)"])
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
