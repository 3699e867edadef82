import TollgateCore

/// Reads a purchase chain from its store and applies it, conditional on the chain's version read
/// before the store was asked (`WorkerStorage.apply`): an answer read before another write of the
/// chain landed is never written over it, whichever worker or path wrote it (`refresh`,
/// `ChainRefresher+Conflicts`: our answer is applied again when that write's read was not newer,
/// the work ends when that write already did it, and only otherwise is the store asked again). The in-process lock
/// (`KeyedLock`) spanning the read and the write only makes such conflicts rarer within one
/// worker: correctness never rests on it. Every path
/// that changes a chain (submissions, notifications, scheduled checks) goes through here, and so
/// does every read's outcome for the store's health: a failure (not the buyer's) starts or
/// continues an outage, and so does an answer that would move a chain backwards (a stale copy,
/// `Reconciler.checkOrder`) or "not found" for a chain the store answered before. The first
/// answer applied after one ends it, which makes the store's postponed work due at once
/// (half-open) instead of after each item's full backoff.
struct ChainRefresher: Sendable {
  let gateways: StoreGateways
  let reconciler: Reconciler
  let storage: any WorkerStorage
  let health: StoreHealth
  let acknowledger: PurchaseAcknowledger
  let chains = KeyedLock()

  /// One read of the chain from its store and its conditional write (`refresh` handles what
  /// follows a conflict). With `reusing`, no store call: the answer this work already fetched is
  /// applied again, conditional on `reusing.version` (the version read after the conflict).
  /// A conditional write that another write overtook throws `OvertakenAnswer` with the answer.
  func refreshOnce(_ reference: ChainReference, work: ChainWork, reusing: (answer: FetchedAnswer, version: Int64)?)
    async throws
    -> Reconciler.Outcome
  {
    guard let gateway = gateways[reference.store] else {
      throw StoreFailure.final("\(reference.store.rawValue) purchases are not verified by this version yet")
    }
    return try await chains.withLock(reference.lockKey) {
      let answer: FetchedAnswer
      var expectedVersion: Int64?
      if let reusing {
        answer = reusing.answer
        expectedVersion = reusing.version
      } else {
        // The version the write will be conditional on, read before the store is asked: a write
        // that lands after it and before ours makes ours fail (`StorageConflict.chainChanged`).
        // When only the store knows the purchase id, the version read after its answer is the one.
        if let purchaseId = reference.purchaseId {
          expectedVersion = try await storage.subscription(store: reference.store, purchaseId: purchaseId)?.version ?? 0
        }
        answer = try await fetch(reference, gateway: gateway)
      }
      let outcome: Reconciler.Outcome
      do {
        outcome = try await reconciler.apply(
          answer.chain, observedAtMs: answer.askedAtMs, claim: work.claim, completes: work.completes,
          reason: work.reason, notSignedBeforeMs: reference.notSignedBeforeMs, revocations: reference.revocations,
          storeAnswered: true, related: reference.relatedPurchaseIds, expectedVersion: expectedVersion,
          requestId: work.requestId)
      } catch let conflict as StorageConflict where conflict.kind == .chainChanged {
        throw OvertakenAnswer(conflict: conflict, answer: answer, olderThanStored: false)
      } catch let stale as StoreFailure where reusing != nil && stale.kind == .transient {
        // Applied again over another worker's write, our answer proves older than what that
        // write holds (`AnswerOrdering`): that write is the newer one, not the store's trouble.
        throw OvertakenAnswer(
          conflict: StorageConflict(.chainChanged, stale.message), answer: answer, olderThanStored: true)
      } catch let failure as StoreFailure where failure.countsAsOutage {
        // A stale answer (signed before the stored state, or moving the chain backwards): the
        // store cannot be believed now.
        await health.failed(reference.store, atMs: answer.askedAtMs)
        throw failure
      }
      try await answered(reference, gateway: gateway)
      await acknowledger.afterVerification(answer.chain, outcome: outcome, gateway: gateway)
      // The chains the store says this change touched (a tier change's cancelled receipt) follow.
      try await reconciler.readSoon(
        store: reference.store, purchaseIds: reference.relatedPurchaseIds.filter { $0 != answer.chain.purchaseId },
        nowMs: reconciler.nowMs())
      return outcome
    }
  }

  /// Asks the store for the chain; a failure (not the buyer's) counts toward the store's outage.
  private func fetch(_ reference: ChainReference, gateway: any StoreGateway) async throws -> FetchedAnswer {
    // The store's answer describes the chain as of the moment we asked, not the moment it
    // arrived: evaluating it at a later `now` could expire a subscription whose renewal the
    // store recorded in between (the clock can jump, or the call can be slow).
    let askedAtMs = reconciler.nowMs()
    do throws(StoreFailure) {
      return FetchedAnswer(chain: try await gateway.fetchChain(reference), askedAtMs: askedAtMs)
    } catch {
      let failure = try await knownChainNotFound(error, reference: reference)
      if failure.countsAsOutage { await health.failed(reference.store, atMs: askedAtMs) }
      throw failure
    }
  }

  /// The store answered: an outage it was in ends, and its postponed work becomes due at once.
  func answered(_ reference: ChainReference, gateway: any StoreGateway) async throws {
    guard await health.succeeded(reference.store, nowMs: reconciler.nowMs()) else { return }
    _ = try await storage.expediteRetries(
      store: reference.store, routes: gateway.notificationRoutes.map(\.name), nowMs: reconciler.nowMs())
  }

  /// "Not found" for a chain the worker verified before is not the store's word that the purchase
  /// never existed (a 404 storm, an index rebuilt at the store): it is the store's trouble, kept
  /// as `transient` (state unchanged, retried, counted toward the outage). Other failures pass.
  private func knownChainNotFound(_ failure: StoreFailure, reference: ChainReference) async throws -> StoreFailure {
    guard failure.kind == .notFound,
      try await storage.subscription(store: reference.store, purchaseId: reference.purchaseId ?? reference.lookupId)
        != nil
    else { return failure }
    return StoreFailure(
      .transient, "the store does not find a purchase it answered for before: \(failure.message)",
      retryAfterMs: failure.retryAfterMs, cause: failure)
  }

  /// Applies what a verified notification's own signed payloads prove, when the store cannot be
  /// read: as far as they go (merged into the stored chain), until the store's full answer
  /// confirms it. Nothing is written when the stored state is newer than the notification.
  func applyNotificationEvidence(_ signed: VerifiedChain, reason: String, requestId: String? = nil) async throws {
    try await retryingConflicts(of: signed.store, signed.purchaseId) {
      try await applyNotificationEvidenceOnce(signed, reason: reason, requestId: requestId)
    }
  }

  private func applyNotificationEvidenceOnce(_ signed: VerifiedChain, reason: String, requestId: String?)
    async throws
  {
    try await chains.withLock(signed.lockKey) {
      do {
        try await reconciler.apply(
          signed, observedAtMs: reconciler.nowMs(), claim: nil, completes: nil,
          reason: "\(reason) (signed notification; the store could not be read)", requestId: requestId)
      } catch let failure as StoreFailure where failure.kind == .transient {
        // Stale: the stored state is newer than this notification. Nothing to advance.
      }
    }
  }

  /// While `stored`'s store cannot be read, evaluates the chain as stored now (read again under
  /// its lock, and written only if still at the version read, so a newer verification is never
  /// overwritten) under the outage policy. Returns whether it wrote.
  @discardableResult
  func holdDuringOutage(_ stored: StoredSubscription, nextCheckAtMs: Int64, failures: Int) async throws -> Bool {
    try await retryingConflicts(of: stored.store, stored.purchaseId) {
      try await chains.withLock(ChainLockKey.of(store: stored.store, purchaseId: stored.purchaseId)) {
        guard let current = try await storage.subscription(store: stored.store, purchaseId: stored.purchaseId) else {
          return false
        }
        return try await reconciler.reevaluateDuringOutage(current, nextCheckAtMs: nextCheckAtMs, failures: failures)
      }
    }
  }

  /// The store no longer has the purchase: the chain (read again under its lock) keeps its last
  /// verified state and its scheduled checks stop (`Reconciler.stopChecks`).
  /// When another write of the chain lands between that read and this write, nothing is written:
  /// that write is newer than the store's "gone", and it scheduled the chain's next check.
  func stopChecks(_ stored: StoredSubscription, because failure: StoreFailure) async throws {
    try await chains.withLock(ChainLockKey.of(store: stored.store, purchaseId: stored.purchaseId)) {
      guard let current = try await storage.subscription(store: stored.store, purchaseId: stored.purchaseId) else {
        return
      }
      do {
        try await reconciler.stopChecks(current, because: failure)
      } catch let conflict as StorageConflict where conflict.kind == .chainChanged {
        reconciler.logger.notice(
          "a newer write of the chain landed first; its checks go on", metadata: ["error": "\(conflict)"])
      }
    }
  }
}
