import TollgateCore

/// Reads a purchase chain from its store and applies it, one verification of a chain at a time:
/// the lock spans the read and the write, so a later read is always written last. Every path
/// that changes a chain (submissions, notifications, scheduled checks) goes through here, and so
/// does every read's outcome for the store's health: a failure (not the buyer's) starts or
/// continues an outage, and the first success after one ends it, which makes the store's postponed
/// work due at once (half-open) instead of after each item's full backoff.
struct ChainRefresher: Sendable {
  let gateways: StoreGateways
  let reconciler: Reconciler
  let storage: any WorkerStorage
  let health: StoreHealth
  let acknowledger: PurchaseAcknowledger
  let chains = KeyedLock()

  @discardableResult
  func refresh(_ reference: ChainReference, claim: Claim?, completes inboxId: Int64?, reason: String) async throws
    -> Reconciler.Outcome
  {
    guard let gateway = gateways[reference.store] else {
      throw StoreFailure.final("\(reference.store.rawValue) purchases are not verified by this version yet")
    }
    return try await chains.withLock(reference.lockKey) {
      // The store's answer describes the chain as of the moment we asked, not the moment it
      // arrived: evaluating it at a later `now` could expire a subscription whose renewal the
      // store recorded in between (the clock can jump, or the call can be slow).
      let askedAtMs = reconciler.nowMs()
      let chain: VerifiedChain
      do throws(StoreFailure) {
        chain = try await gateway.fetchChain(reference)
      } catch {
        if error.kind == .transient || error.kind == .needsOperator { health.failed(reference.store, atMs: askedAtMs) }
        throw error
      }
      if health.succeeded(reference.store) {
        _ = try await storage.expediteRetries(
          store: reference.store, routes: gateway.notificationRoutes.map(\.name), nowMs: reconciler.nowMs())
      }
      let outcome = try await reconciler.apply(
        chain, observedAtMs: askedAtMs, claim: claim, completes: inboxId, reason: reason,
        notSignedBeforeMs: reference.notSignedBeforeMs, revocations: reference.revocations,
        related: reference.relatedPurchaseIds)
      await acknowledger.afterVerification(chain, outcome: outcome, gateway: gateway)
      // The chains the store says this change touched (a tier change's cancelled receipt) follow.
      try await reconciler.readSoon(
        store: reference.store, purchaseIds: reference.relatedPurchaseIds.filter { $0 != chain.purchaseId },
        nowMs: reconciler.nowMs())
      return outcome
    }
  }

  /// Applies what a verified notification's own signed payloads prove, when the store cannot be
  /// read: as far as they go (merged into the stored chain), until the store's full answer
  /// confirms it. Nothing is written when the stored state is newer than the notification.
  func applyNotificationEvidence(_ signed: VerifiedChain, reason: String) async throws {
    try await chains.withLock(signed.lockKey) {
      do {
        try await reconciler.apply(
          signed, observedAtMs: reconciler.nowMs(), claim: nil, completes: nil,
          reason: "\(reason) (signed notification; the store could not be read)")
      } catch let failure as StoreFailure where failure.kind == .transient {
        // Stale: the stored state is newer than this notification. Nothing to advance.
      }
    }
  }
}
