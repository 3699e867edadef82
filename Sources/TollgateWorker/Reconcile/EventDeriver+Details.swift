import TollgateCore

extension EventDeriver {
  /// What a new purchase that replaced `old` means for listeners.
  enum Replacement: Sendable, Hashable {
    /// A plan change: upgrade, downgrade or crossgrade.
    case productChange(EventProductChange)
    /// The same product again (Amazon's new receipt per term), or a change already announced
    /// when it was scheduled (a deferred downgrade that took effect at the renewal).
    case renewal
  }

  /// How long before a new purchase starts the purchase it replaced may have ended and still count
  /// as replaced (rather than lapsed, then bought again).
  static let replacementToleranceMs: Int64 = 60_000

  /// `nil` when the new purchase started after `old` had ended: a purchase, not a plan change.
  func replacement(of old: StoredSubscription, by evaluation: SubscriptionEvaluation, history: SubscriptionHistory)
    -> Replacement?
  {
    guard let start = history.firstPurchaseDateMs, old.accessEndsAtMs + Self.replacementToleranceMs >= start,
      old.history.firstPurchaseDateMs.map({ $0 <= start }) ?? true
    else { return nil }
    if old.productId == evaluation.productId || Self.pendingProduct(old) == evaluation.productId {
      return .renewal
    }
    return .productChange(
      EventProductChange(
        direction: direction(from: old.productId, to: evaluation.productId, store: evaluation.store),
        fromProductId: old.productId, toProductId: evaluation.productId, effectiveAtMs: start,
        fromPurchaseId: old.purchaseId))
  }

  /// The purchase a chain seen (or bound) for the first time replaced, if any: the one Google's
  /// `linkedPurchaseToken` names; of Amazon's, the receipt the store says this one replaced
  /// (`related`: a tier change's cancelled receipt), else the same user's receipt that was to renew
  /// into this product (a deferred tier change, a new receipt per term) and was still granting
  /// when this one started.
  static func replacedChain(
    of history: SubscriptionHistory, owner: String?, related: [String] = [], storage: any WorkerStorage
  ) async throws -> StoredSubscription? {
    guard let owner else { return nil }
    if let linked = history.linkedPurchaseToken, linked != history.purchaseId {
      let previous = try await storage.subscription(store: history.store, purchaseId: linked)
      return previous?.userId == owner ? previous : nil
    }
    for id in related where id != history.purchaseId {
      if let previous = try await storage.subscription(store: history.store, purchaseId: id), previous.userId == owner {
        return previous
      }
    }
    // Only a store whose chains name a parent product (Amazon) issues a new purchase per term or tier.
    guard history.parentProductId != nil, let start = history.firstPurchaseDateMs else { return nil }
    let product = history.transactions.min(by: earlier)?.productId
    return try await storage.subscriptions(userId: owner).filter {
      $0.store == history.store && $0.purchaseId != history.purchaseId
        && (pendingProduct($0) == product
          || ($0.productId == product && $0.history.parentProductId == history.parentProductId))
        && ($0.history.firstPurchaseDateMs ?? .max) <= start && $0.accessEndsAtMs + replacementToleranceMs >= start
    }.max { ($0.history.firstPurchaseDateMs ?? 0) < ($1.history.firstPurchaseDateMs ?? 0) }
  }

  /// The product the stored chain was to renew into, when that differs from its product and it
  /// was renewing.
  static func pendingProduct(_ stored: StoredSubscription) -> String? {
    guard stored.willRenew, let next = stored.history.renewalInfo?.autoRenewProductId, !next.isEmpty,
      next != stored.productId
    else { return nil }
    return next
  }

  /// Transactions revoked in `now` that `previous` did not show revoked.
  static func newlyRevoked(previous: SubscriptionHistory, now: SubscriptionHistory) -> [StoreTransaction] {
    let known = Set(previous.transactions.filter(\.isRevoked).map(\.transactionId))
    return now.transactions.filter { $0.isRevoked && !known.contains($0.transactionId) }.sorted(by: earlier)
  }

  /// The first paid period that ends after `endMs`, not taken back.
  static func paidPeriod(after endMs: Int64, in history: SubscriptionHistory) -> StoreTransaction? {
    history.transactions.filter { !$0.isFreeTrial && !$0.isRevoked && $0.expiresDateMs > endMs }.min(by: earlier)
  }

  /// Chain order: by start, then end, then id.
  static func earlier(_ a: StoreTransaction, _ b: StoreTransaction) -> Bool {
    (a.purchaseDateMs, a.expiresDateMs, a.transactionId) < (b.purchaseDateMs, b.expiresDateMs, b.transactionId)
  }

  /// When the transaction the evaluation rests on began.
  static func start(of evaluation: SubscriptionEvaluation, in history: SubscriptionHistory) -> Int64? {
    history.transactions.first { $0.transactionId == evaluation.transactionId }?.purchaseDateMs
  }

  static func reason(of transaction: StoreTransaction) -> StateReason {
    switch transaction.revocationReason {
    case .familySharingRevoked: .familySharingRevoked
    case .revoked: .revoked
    case .refunded, nil: .refunded
    }
  }

  static func periodType(of transaction: StoreTransaction) -> EventDetails.PeriodType {
    if transaction.isFreeTrial { return .trial }
    return transaction.offerType == .introductory ? .intro : .normal
  }

  /// The details every event of a chain carries: where, which transaction, which period, until
  /// when, and the price where the store reports it.
  static func details(of evaluation: SubscriptionEvaluation, history: SubscriptionHistory) -> EventDetails {
    let transaction = history.transactions.first { $0.transactionId == evaluation.transactionId }
    var details = EventDetails(
      environment: evaluation.environment, transactionId: evaluation.transactionId,
      expiresAtMs: evaluation.expiresAtMs == .max ? nil : evaluation.expiresAtMs)
    switch evaluation.state {
    case .trial: details.periodType = .trial
    case .introOffer: details.periodType = .intro
    default: details.periodType = transaction.map(periodType(of:)) ?? .normal
    }
    details.priceMilli = transaction?.priceMilli
    details.currency = transaction?.currency
    details.storefront = transaction?.storefront
    return details
  }

  /// `events` (a claim's: transferred, transfer_refused, claim_refused) with the chain's details.
  static func withDetails(_ events: [WorkerEvent], of evaluation: SubscriptionEvaluation, history: SubscriptionHistory)
    -> [WorkerEvent]
  {
    let details = details(of: evaluation, history: history)
    return events.map { event in
      var event = event
      event.details = details
      return event
    }
  }

  /// `base` about `transaction` instead: its id, period type and price.
  static func details(_ base: EventDetails, of transaction: StoreTransaction) -> EventDetails {
    var details = base
    details.transactionId = transaction.transactionId
    details.periodType = periodType(of: transaction)
    details.priceMilli = transaction.priceMilli
    details.currency = transaction.currency
    details.storefront = transaction.storefront
    return details
  }
}
