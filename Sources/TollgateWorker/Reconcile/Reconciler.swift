import Logging
import TollgateCore

/// Applies a verified chain: binds it to a user (`ClaimRuling`: the transfer policy and what the
/// submission proves), evaluates it, derives events, schedules the next check and writes
/// everything in one transaction.
///
/// Two rules keep a bad answer from undoing good state:
/// - **Evidence ordering** (`AnswerOrdering`): an answer signed before the state it would replace
///   (or before the notification that asked for it), or an unsigned one that would move the chain
///   backwards (a refund or a renewal disappearing), is stale — a caching proxy, replication lag
///   at the store, a slower read by another worker — and is not applied
///   (`StoreFailure.transient`: retried until the store catches up).
/// - **Merge, never shrink**: an answer is merged into what was verified before
///   (`SubscriptionHistory.merging(newer:)`): what it leaves out stays.
struct Reconciler: Sendable {
  let storage: any WorkerStorage
  let catalog: ProductCatalog
  let settings: WorkerSettings
  let health: StoreHealth
  let nowMs: @Sendable () -> Int64
  let logger: Logger

  struct Outcome: Sendable {
    var ownerUserId: String?
    var state: SubscriptionState
    /// Set when the claim was refused (`ClaimRuling`).
    var refusal: String?
  }

  /// The rules chains are evaluated by now (which stores are failing changes over time).
  var evaluator: ChainEvaluator {
    ChainEvaluator(catalog: catalog, settings: settings, failingStores: health.failingStores)
  }

  /// - Parameters:
  ///   - observedAtMs: when the store was asked; the chain is evaluated at that moment.
  ///   - claim: the user who submitted the purchase and what the submission proves
  ///     (`ClaimRuling`); nil for notifications and scheduled checks.
  ///   - completes: the inbox item this verification finishes, under the worker's claim of it
  ///     (nothing is written, `StorageConflict.claimLost`, when that claim was lost).
  ///   - notSignedBeforeMs: what asked for this answer was signed then (a notification).
  ///   - revocations: refunds the store reported outside this answer (`ChainReference.revocations`),
  ///     applied to the merged history, so a period the answer no longer lists is covered too.
  ///   - storeAnswered: the chain is the store's own answer just now, so it is not evaluated
  ///     under the store's outage policy (the answer ends the outage once applied).
  ///   - related: other chains the store says this change touched (`ChainReference.relatedPurchaseIds`),
  ///     for the events (a tier change's cancelled receipt is the purchase this one replaced).
  ///   - expectedVersion: the chain's version read before the store was asked (`ChainRefresher`):
  ///     when the chain read now is at another one, another write landed since, and this answer
  ///     may be older than it: `StorageConflict.chainChanged`, nothing written
  ///     (`ChainRefresher.refresh` decides what follows). Nil: the version read here is the one the write is conditional on.
  ///   - requestId: the request whose inbox item asked for this (`InboxItem.requestId`): every
  ///     event written carries it to its webhooks, and the line logged names it.
  @discardableResult
  func apply(
    _ chain: VerifiedChain, observedAtMs now: Int64, claim: Claim?, completes inboxItem: InboxClaim?, reason: String,
    notSignedBeforeMs: Int64? = nil, revocations: [ReportedRevocation] = [], storeAnswered: Bool = false,
    related: [String] = [], expectedVersion: Int64? = nil, requestId: String? = nil
  ) async throws -> Outcome {
    let existing = try await storage.subscription(store: chain.store, purchaseId: chain.purchaseId)
    // Storage checks it again inside the write (`WorkerStorage.apply`).
    let version = existing?.version ?? 0
    if let expectedVersion, version != expectedVersion {
      throw StorageConflict(
        .chainChanged,
        "\(chain.store.rawValue) chain \(chain.store.loggable(chain.purchaseId)) is at version \(version), "
          + "not \(expectedVersion) as read before the store was asked")
    }
    if let stale = AnswerOrdering.signedStale(chain, stored: existing, notSignedBeforeMs: notSignedBeforeMs) {
      throw stale
    }
    let history = (existing.map { $0.history.merging(newer: chain.history) } ?? chain.history).applying(revocations)
    if let stale = AnswerOrdering.unsignedStale(chain, stored: existing?.history, merged: history) { throw stale }
    // The recorded rows carry the revocations the history now holds.
    let revoked = Dictionary(
      history.transactions.filter { $0.revocationDateMs != nil }.map { ($0.transactionId, $0) }
    ) { a, _ in a }
    let rows =
      revocations.isEmpty
      ? chain.transactions
      : chain.transactions.map { row in
        var row = row
        if let transaction = revoked[row.storeTransactionId] {
          row.revokedAtMs = transaction.revocationDateMs
          row.revocationReason = transaction.revocationReason?.rawValue
        }
        return row
      }
    let evaluator =
      storeAnswered
      ? ChainEvaluator(
        catalog: catalog, settings: settings, failingStores: health.failingStores.subtracting([chain.store]))
      : evaluator
    let evaluation = evaluator.evaluate(history, at: now)
    if let stale = AnswerOrdering.unconfirmedRenewal(
      chain, stored: existing, merged: history, evaluation: evaluation, nowMs: now,
      outageLeewayMs: settings.storeOutageLeewayMs)
    {
      throw stale
    }
    var owner = existing?.userId
    // An erase unbound the chain: only a claim with fresh proof binds it again (ClaimRuling rule 5).
    let erased = existing?.erasedAtMs != nil
    var inheritedFrom: StoredSubscription?
    if owner == nil, let linked = history.linkedPurchaseToken, linked != chain.purchaseId,
      let previous = try await storage.subscription(store: chain.store, purchaseId: linked), previous.userId != nil
    {
      // An upgrade, downgrade or re-signup: the new purchase belongs to whoever owned the one it
      // replaces (Google's linkedPurchaseToken), before any claim is weighed.
      owner = previous.userId
      inheritedFrom = previous
    }
    var events: [WorkerEvent] = []
    var alsoRecompute: String?
    var refusal: String?

    if let claim {
      let ruling = ClaimRuling(
        claim: claim, owner: owner, chain: chain, evaluation: evaluation, policy: catalog.transferPolicy,
        bindAppAccountToken: settings.bindAppAccountToken, erased: erased, nowMs: now)
      owner = ruling.owner
      refusal = ruling.refusal
      alsoRecompute = ruling.previousOwner
      events += EventDeriver.withDetails(ruling.events, of: evaluation, history: history)
    } else if owner == nil, !erased, settings.bindAppAccountToken, let token = chain.appAccountToken, !token.isEmpty {
      // A notification came before any submission; the app told the store who the buyer is. Not
      // for a chain an erase unbound: its token names the erased user (ClaimRuling rule 5).
      owner = token.lowercased()
    } else if owner == nil, !erased, let storeUserId = chain.storeUserId,
      let known = try await storage.user(store: chain.store, storeUserId: storeUserId)
    {
      // A notification came first, for a buyer (the store's user id) already bound to a user.
      owner = known
    }

    // The first time a chain gets a user (a notification came first), that user has just bought it.
    let firstBinding = existing?.userId == nil && owner != nil
    // A new purchase that replaced another (a plan change in its own purchase) is told as one.
    let replacing =
      firstBinding
      ? try await EventDeriver.replacedChain(of: history, owner: owner, related: related, storage: storage) : nil
    events += EventDeriver(groups: catalog.subscriptionGroups).events(
      previous: firstBinding ? nil : existing, now: evaluation, history: history, userId: owner, atMs: now,
      replacing: replacing)
    let subscription = StoredSubscription(
      store: chain.store, purchaseId: chain.purchaseId, appId: chain.appId, userId: owner,
      history: history, evidence: chain.evidence, state: evaluation.state, reason: evaluation.reason.rawValue,
      productId: evaluation.productId, willRenew: evaluation.willRenew, expiresAtMs: evaluation.expiresAtMs,
      accessEndsAtMs: evaluation.accessEndsAtMs, appAccountToken: chain.appAccountToken ?? existing?.appAccountToken,
      storeUserId: chain.storeUserId ?? existing?.storeUserId, verifiedAtMs: now,
      nextCheckAtMs: CheckSchedule.next(
        after: evaluation, nowMs: now, startsAtMs: evaluator.nextStart(of: history, after: now), settings: settings),
      failures: 0, erasedAtMs: owner == nil ? existing?.erasedAtMs : nil)
    if let requestId {
      for index in events.indices { events[index].requestId = requestId }
    }
    let completion = inboxItem.map { item in
      refusal.map { InboxCompletion(item, state: .rejected, outcome: $0) }
        ?? InboxCompletion(
          item, state: .verified, outcome: "\(evaluation.state.rawValue) until \(evaluation.accessEndsAtMs)")
    }
    try await storage.apply(
      SubscriptionChange(
        subscription: subscription, transactions: rows, events: events, completes: completion,
        alsoRecompute: alsoRecompute, reason: reason, nowMs: now, expectedVersion: version),
      recompute: evaluator.recompute(nowMs: now))
    if let previous = inheritedFrom {
      // The replaced purchase is read again soon, so its own state shows the replacement.
      try await readSoon(store: previous.store, purchaseIds: [previous.purchaseId], nowMs: now)
    }
    var metadata: Logger.Metadata = [
      "store.name": "\(chain.store.rawValue)",
      "subscription.purchase_id": "\(chain.store.loggable(chain.purchaseId))",
      "subscription.state": "\(evaluation.state.rawValue)", "events": "\(events.map(\.kind))",
    ]
    if let requestId { metadata["request_id"] = "\(requestId)" }
    logger.info("subscription verified", metadata: metadata)
    return Outcome(ownerUserId: owner, state: evaluation.state, refusal: refusal)
  }

  /// Makes the stored chains `purchaseIds` of `store` due at `nowMs` (unless they already are), so
  /// their own state follows a change that touched them; unknown ids are skipped.
  func readSoon(store: Store, purchaseIds: [String], nowMs now: Int64) async throws {
    for purchaseId in purchaseIds {
      guard let stored = try await storage.subscription(store: store, purchaseId: purchaseId),
        stored.nextCheckAtMs.map({ $0 > now }) ?? true
      else { continue }
      try await storage.postponeCheck(
        store: store, purchaseId: purchaseId, claimToken: nil, untilMs: now, failures: stored.failures)
    }
  }

  /// While its store cannot be read, evaluates a stored chain again under the outage policy and
  /// writes the result if it changed (a renewing subscriber keeps access past the leeway); the
  /// verified history, its evidence and its verification time stay as they are. The write is
  /// conditional on `stored.version`. Returns whether it wrote.
  @discardableResult
  func reevaluateDuringOutage(_ stored: StoredSubscription, nextCheckAtMs: Int64, failures: Int) async throws -> Bool {
    let now = nowMs()
    let evaluator = evaluator
    let evaluation = evaluator.evaluate(stored.history, at: now)
    guard
      evaluation.accessEndsAtMs != stored.accessEndsAtMs || evaluation.state != stored.state
        || evaluation.reason.rawValue != stored.reason
    else { return false }
    var subscription = stored
    subscription.state = evaluation.state
    subscription.reason = evaluation.reason.rawValue
    subscription.expiresAtMs = evaluation.expiresAtMs
    subscription.accessEndsAtMs = evaluation.accessEndsAtMs
    subscription.willRenew = evaluation.willRenew
    subscription.nextCheckAtMs = nextCheckAtMs
    subscription.failures = failures
    try await storage.apply(
      SubscriptionChange(
        subscription: subscription, transactions: [], events: [], completes: nil, alsoRecompute: nil,
        reason: "store unreachable", nowMs: now, expectedVersion: stored.version),
      recompute: evaluator.recompute(nowMs: now))
    logger.warning(
      "the store cannot be read; access follows the outage policy",
      metadata: [
        "store.name": "\(stored.store.rawValue)",
        "subscription.purchase_id": "\(stored.store.loggable(stored.purchaseId))",
        "subscription.state": "\(evaluation.state.rawValue)", "subscription.reason": "\(evaluation.reason.rawValue)",
        "access.ends_at_ms": "\(evaluation.accessEndsAtMs)",
      ])
    return true
  }
}
