import Logging
import TollgateCore

/// What one piece of work (an inbox item, a scheduled check, a sweep's finding) asks of a
/// chain's refresh, beyond the store's answer.
struct ChainWork: Sendable {
  /// The user a submission binds (`ClaimRuling`); nil for notifications and checks.
  var claim: Claim?
  /// The inbox item the verification finishes, under the worker's claim of it.
  var completes: InboxClaim?
  var reason: String
  /// When the work arrived or fell due, on the workers' clock (what other workers' reads are
  /// stamped with): a notification's receipt (a worker stamped it), the moment this worker took a
  /// submission up (a `serve` replica stamped its receipt, on a clock of its own), a scheduled
  /// check's due time; nil when unknown, and then no other write is taken to have done it.
  var arrivedAtMs: Int64?
  /// The request that made the inbox item (`InboxItem.requestId`): the events written carry it.
  var requestId: String?
}

/// A store's answer fetched for one piece of work, and when the store was asked.
struct FetchedAnswer: Sendable {
  var chain: VerifiedChain
  var askedAtMs: Int64
}

/// Another write of the chain landed between the version read and the conditional write of
/// `answer` (`StorageConflict.chainChanged`), or, applied again, `answer` proved older than what
/// that write holds (`olderThanStored`). Nothing was written.
struct OvertakenAnswer: Error, Sendable {
  var conflict: StorageConflict
  var answer: FetchedAnswer
  var olderThanStored: Bool
}

/// What follows a conflict (`ChainRefresher.refresh`).
enum ConflictResolution: Sendable {
  /// Applied again, conditional on the version that write left, with no store call: our own
  /// answer, when that write came from a read not newer than ours; or, when it came from a newer
  /// read that did all but bind the submitter, the stored (newer) answer itself with the claim.
  case apply(FetchedAnswer, version: Int64)
  /// That write came from a newer read and did everything the work needs: the work ends on it.
  case finished(StoredSubscription)
  /// Otherwise the chain is read from the store again.
  case readAgain
}

extension ChainRefresher {
  /// How many times one piece of work writes a chain while other writes of it keep landing
  /// first, before it gives up for now (at most that many store calls, fewer when it applies its
  /// answer again or finds its work done).
  static let conflictAttempts = 3

  /// Reads a purchase chain from its store and applies it, conditional on the version read before
  /// the store was asked (`refreshOnce`). When another write of the chain landed first
  /// (`StorageConflict.chainChanged`: another worker, or another path of this one), the stored
  /// chain is read again and (`resolution`):
  /// - that write's read was not newer than ours (its `verifiedAtMs`, when the store was asked
  ///   for the state it wrote, is at or before our `askedAtMs`): our answer is applied again,
  ///   conditional on the new version, without asking the store; `Reconciler.apply` still refuses
  ///   it if it proves older than what that write holds (`AnswerOrdering`), which counts as the
  ///   next case;
  /// - that write is newer and answers what the work asks (`answersFor`), and binds the chain as
  ///   the work's claim would (none, or the owner's own): the work ends as the normal path ends it
  ///   (the inbox item verified with the stored state; a check as that write scheduled it);
  /// - the same, but the submitter is not bound yet: the stored answer (never our older one) is
  ///   applied again with the claim, conditional on the new version;
  /// - otherwise the chain is read from the store again.
  /// At most `conflictAttempts` writes in all; then the conflict is thrown, and the caller retries
  /// the work later as after a transient failure. A conflict never counts toward an outage.
  @discardableResult
  func refresh(
    _ reference: ChainReference, claim: Claim?, completes inboxItem: InboxClaim?, reason: String,
    arrivedAtMs: Int64? = nil, requestId: String? = nil
  ) async throws -> Reconciler.Outcome {
    let work = ChainWork(
      claim: claim, completes: inboxItem, reason: reason, arrivedAtMs: arrivedAtMs, requestId: requestId)
    var reusing: (answer: FetchedAnswer, version: Int64)?
    var attempt = 1
    while true {
      do {
        return try await refreshOnce(reference, work: work, reusing: reusing)
      } catch let overtaken as OvertakenAnswer {
        guard attempt < Self.conflictAttempts else { throw overtaken.conflict }
        attempt += 1
        let chain = overtaken.answer.chain
        let stored = try await storage.subscription(store: chain.store, purchaseId: chain.purchaseId)
        let next = resolution(of: overtaken, stored: stored, reference: reference, work: work)
        var metadata: Logger.Metadata = [
          "store.name": "\(chain.store.rawValue)",
          "subscription.purchase_id": "\(chain.store.loggable(chain.purchaseId))",
          "attempt": "\(attempt)", "answer.asked_at_ms": "\(overtaken.answer.askedAtMs)",
          "stored.verified_at_ms": "\(stored.map { "\($0.verifiedAtMs)" } ?? "none")",
          "work.arrived_at_ms": "\(work.arrivedAtMs.map { "\($0)" } ?? "unknown")",
        ]
        switch next {
        case .apply(let answer, let version):
          metadata["stored.version"] = "\(version)"
          let whose = answer.askedAtMs == overtaken.answer.askedAtMs ? "ours" : "the stored one, binding the submitter"
          metadata["answer.applied"] = "\(whose)"
          reconciler.logger.info(
            "another write of the chain landed first; applying an answer again without asking the store",
            metadata: metadata)
          reusing = (answer, version)
        case .finished(let stored):
          reconciler.logger.info(
            "another write of the chain landed first and did this work; ending it there", metadata: metadata)
          return try await finish(work, on: stored, reference: reference)
        case .readAgain:
          reconciler.logger.info(
            "another write of the chain landed first, from a newer read; reading it again", metadata: metadata)
          reusing = nil
        }
      }
    }
  }

  /// What follows `overtaken`, given the chain as stored now.
  func resolution(
    of overtaken: OvertakenAnswer, stored: StoredSubscription?, reference: ChainReference, work: ChainWork
  ) -> ConflictResolution {
    guard let stored else { return .apply(overtaken.answer, version: 0) }
    if !overtaken.olderThanStored && stored.verifiedAtMs <= overtaken.answer.askedAtMs {
      return .apply(overtaken.answer, version: stored.version)
    }
    guard answersFor(stored, reference: reference, work: work) else { return .readAgain }
    guard let claim = work.claim, !bindsAsClaimed(stored, claim) else { return .finished(stored) }
    // Only the submitter's binding is missing: bound on the stored answer, never on ours (older).
    var chain = VerifiedChain(
      store: stored.store, appId: stored.appId, purchaseId: stored.purchaseId, history: stored.history,
      transactions: [], evidence: stored.evidence, appAccountToken: stored.appAccountToken,
      storeUserId: stored.storeUserId)
    // What our read said the store still waits for (an acknowledgement once the purchase is bound).
    chain.acknowledgement = overtaken.answer.chain.acknowledgement
    return .apply(FetchedAnswer(chain: chain, askedAtMs: stored.verifiedAtMs), version: stored.version)
  }

  /// Whether the stored write (newer than this work's answer) is an answer of the store to what
  /// the work asks: the store was asked for it after the work arrived, by the store itself (not a
  /// notification's own payloads, written while the store could not be read), signed no earlier
  /// than what asked for the work, holding every refund reported beside it.
  func answersFor(_ stored: StoredSubscription, reference: ChainReference, work: ChainWork) -> Bool {
    guard let arrivedAtMs = work.arrivedAtMs, arrivedAtMs < stored.verifiedAtMs,
      stored.evidence.source != Self.notificationEvidenceSource,
      stored.history.applying(reference.revocations) == stored.history
    else { return false }
    if let notSignedBefore = reference.notSignedBeforeMs, let signedAt = stored.evidence.newestSignedAtMs,
      signedAt < notSignedBefore
    {
      return false
    }
    return true
  }

  /// Whether `claim` changes nothing on `stored`: the owner's own claim (nothing to bind, refuse
  /// or record, `ClaimRuling`).
  func bindsAsClaimed(_ stored: StoredSubscription, _ claim: Claim) -> Bool {
    guard let owner = stored.userId else { return false }
    let chain = VerifiedChain(
      store: stored.store, appId: stored.appId, purchaseId: stored.purchaseId, history: stored.history,
      transactions: [], evidence: stored.evidence, appAccountToken: stored.appAccountToken,
      storeUserId: stored.storeUserId)
    let ruling = ClaimRuling(
      claim: claim, owner: owner, chain: chain,
      evaluation: reconciler.evaluator.evaluate(stored.history, at: stored.verifiedAtMs),
      policy: reconciler.catalog.transferPolicy, bindAppAccountToken: reconciler.settings.bindAppAccountToken,
      erased: stored.erasedAtMs != nil, nowMs: stored.verifiedAtMs)
    return ruling.owner == owner && ruling.refusal == nil && ruling.events.isEmpty
  }

  /// The evidence source of a state written from a notification's own signed payloads
  /// (`applyNotificationEvidence`), not from the store's answer.
  static let notificationEvidenceSource = "notification"

  /// Ends `work` on the write that covers it, as the normal path would: the inbox item verified
  /// with the stored state under the worker's claim of it (`StorageConflict.claimLost` when that
  /// claim was lost); a scheduled check needs nothing, as that write ended its claim and
  /// scheduled the next one. The store did answer us, so an outage it was in ends.
  private func finish(_ work: ChainWork, on stored: StoredSubscription, reference: ChainReference) async throws
    -> Reconciler.Outcome
  {
    if let gateway = gateways[reference.store] { try await answered(reference, gateway: gateway) }
    if let item = work.completes {
      try await storage.finishInbox(
        id: item.id, claimToken: item.claimToken, state: .verified,
        outcome: "\(stored.state.rawValue) until \(stored.accessEndsAtMs)", nowMs: reconciler.nowMs())
    }
    try await reconciler.readSoon(
      store: reference.store, purchaseIds: reference.relatedPurchaseIds.filter { $0 != stored.purchaseId },
      nowMs: reconciler.nowMs())
    return Reconciler.Outcome(ownerUserId: stored.userId, state: stored.state, refusal: nil)
  }

  /// Runs `body` again while it fails with `.chainChanged`, at most `conflictAttempts` times in
  /// all; each run reads the chain afresh (no store call: the outage policy, a notification's
  /// own payloads).
  func retryingConflicts<T: Sendable>(
    of store: Store, _ purchaseId: String, _ body: @Sendable () async throws -> T
  ) async throws -> T {
    var attempt = 1
    while true {
      do {
        return try await body()
      } catch let conflict as StorageConflict where conflict.kind == .chainChanged && attempt < Self.conflictAttempts {
        attempt += 1
        reconciler.logger.info(
          "another write of the chain landed first; reading it again",
          metadata: [
            "store.name": "\(store.rawValue)", "subscription.purchase_id": "\(store.loggable(purchaseId))",
            "attempt": "\(attempt)",
          ])
      }
    }
  }
}
