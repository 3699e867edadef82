/// The pure function from a subscription's history to its state at a moment.
///
/// `docs/lifecycle.md` explains, per store, which signals lead to which state.
public enum SubscriptionLifecycle {
  /// Computes the state of one purchase chain at `nowMs`.
  ///
  /// The order of `history.transactions` does not matter. A refunded period counts as never
  /// bought; a refund inside a renewed chain removes only the period it covers.
  ///
  /// - Parameters:
  ///   - history: every period of the chain and the latest renewal info.
  ///   - nowMs: the moment to evaluate, ms since epoch UTC.
  ///   - policy: grace and renewal-leeway policy.
  ///   - groups: subscription groups, to tell upgrades from downgrades and crossgrades.
  public static func evaluate(
    _ history: SubscriptionHistory,
    at nowMs: Int64,
    policy: GracePolicy = .defaults,
    groups: [SubscriptionGroup] = []
  ) -> SubscriptionEvaluation {
    let periods = ChainPeriods(history)
    let begun = periods.live.filter { $0.start <= nowMs }
    let revokedBegun = periods.revoked.filter { $0.start <= nowMs }
    let info = history.renewalInfo
    let autoRenew = info?.willAutoRenew ?? false
    let leeway = max(0, policy.renewalLeewayMs)

    var result = SubscriptionEvaluation(
      store: history.store, purchaseId: history.purchaseId, environment: history.environment,
      productId: "", state: .expired, reason: .notStarted, expiresAtMs: 0, accessEndsAtMs: 0,
      willRenew: false, isSandbox: history.environment == .sandbox,
      acknowledgementPending: history.store == .googlePlay && info?.isAcknowledged == false,
      evaluatedAtMs: nowMs)

    // 1. A period covers the moment: trial, intro offer or active (or Google grace).
    if let current = begun.filter({ nowMs < $0.end }).max(by: { isBefore($0, $1) }) {
      let coverageEnd = periods.contiguousEnd(from: current.end)
      result.describe(current.transaction)
      result.state = offerState(current.transaction)
      result.reason = .currentPeriod
      result.expiresAtMs = coverageEnd
      result.accessEndsAtMs = autoRenew ? coverageEnd + leeway : coverageEnd
      if info?.googlePlayState == .inGracePeriod, policy.honorStoreGracePeriod {
        // Google may report the grace period's end as the line item expiryTime.
        let graceEnd = max(coverageEnd, info?.gracePeriodExpiresDateMs ?? coverageEnd)
        result.state = .gracePeriod
        result.reason = .billingGracePeriod
        result.gracePeriodExpiresAtMs = graceEnd
        result.accessEndsAtMs = graceEnd
      }
      return result.withFlags(info: info, store: history.store, groups: groups)
    }

    // 2. Nothing has begun that grants access.
    guard let last = begun.max(by: { ($0.end, $0.start) < ($1.end, $1.start) }) else {
      if let refunded = revokedBegun.max(by: { isBefore($0, $1) }) {
        result.describe(refunded.transaction)
        // Every period was refunded: access counts as ended at the earliest refund.
        let ended = revokedBegun.map { min($0.transaction.revocationDateMs ?? $0.end, $0.end) }.min() ?? refunded.end
        result.state = .revoked
        result.reason = revokedReason(refunded.transaction)
        result.expiresAtMs = ended
        result.accessEndsAtMs = ended
      } else {
        let start = min(nowMs, history.firstPurchaseDateMs ?? nowMs)
        result.productId = history.transactions.min(by: StoreTransaction.chainOrder)?.productId ?? ""
        result.expiresAtMs = start
        result.accessEndsAtMs = start
      }
      return result.withFlags(info: info, store: history.store, groups: groups)
    }

    // 3. The last period has ended.
    let expiry = last.end
    result.describe(last.transaction)
    result.expiresAtMs = expiry
    result.accessEndsAtMs = expiry
    result.state = .expired
    result.reason = expiredReason(info?.expirationIntent)

    let refundedLatest = revokedBegun.filter { $0.start >= last.start || $0.end > last.end }
    if let refunded = refundedLatest.max(by: { isBefore($0, $1) }) {
      // The latest period was refunded: as if never bought, access ended with the one before.
      result.describe(refunded.transaction)
      result.state = .revoked
      result.reason = revokedReason(refunded.transaction)
      return result.withFlags(info: info, store: history.store, groups: groups)
    }
    let replacedAt = history.replacedAtMs.map { $0 <= nowMs } ?? false
    if replacedAt || last.transaction.isUpgraded || info?.expirationIntent == .replaced {
      result.reason = .replaced
      return result.withFlags(info: info, store: history.store, groups: groups)
    }
    if let state = info?.googlePlayState, state.isReportedOutcome {
      result.applyGooglePlay(state, info: info, expiry: expiry, now: nowMs, policy: policy)
      return result.withFlags(info: info, store: history.store, groups: groups)
    }

    let grace = info?.gracePeriodExpiresDateMs.flatMap { $0 > expiry ? $0 : nil }
    let cancelled = info?.cancelDateMs != nil
    if let grace, nowMs < grace, !cancelled {
      if policy.honorStoreGracePeriod {
        result.state = .gracePeriod
        result.reason = .billingGracePeriod
        result.gracePeriodExpiresAtMs = grace
        result.accessEndsAtMs = grace
      } else {
        result.state = .billingRetry
        result.reason = .billingRetry
      }
    } else if info?.isInBillingRetryPeriod == true {
      result.state = .billingRetry
      result.reason = .billingRetry
      if let grace, policy.honorStoreGracePeriod { result.accessEndsAtMs = min(grace, nowMs) }
    } else if cancelled || info?.expirationIntent != nil || !autoRenew {
      result.state = .expired
    } else if let grace {
      // Auto-renew still on after the grace period, and no cancellation yet (Amazon).
      result.state = .billingRetry
      result.reason = .billingRetry
      if policy.honorStoreGracePeriod { result.accessEndsAtMs = grace }
    } else if nowMs < expiry + leeway {
      result.state = offerState(last.transaction)
      result.reason = .renewalPending
      result.accessEndsAtMs = expiry + leeway
    } else {
      result.state = .expired
      result.reason = .lapsed
    }
    return result.withFlags(info: info, store: history.store, groups: groups)
  }

  /// Trial, intro offer or active, by the offer of the period.
  static func offerState(_ transaction: StoreTransaction) -> SubscriptionState {
    if transaction.isFreeTrial { return .trial }
    if transaction.offerType == .introductory { return .introOffer }
    return .active
  }

  private static func isBefore(_ lhs: EffectivePeriod, _ rhs: EffectivePeriod) -> Bool {
    StoreTransaction.chainOrder(lhs.transaction, rhs.transaction)
  }

  static func revokedReason(_ transaction: StoreTransaction) -> StateReason {
    switch transaction.revocationReason {
    case .familySharingRevoked: .familySharingRevoked
    case .revoked: .revoked
    case .refunded, nil: .refunded
    }
  }

  static func expiredReason(_ intent: ExpirationIntent?) -> StateReason {
    switch intent {
    case .customerCanceled: .customerCanceled
    case .billingError: .billingError
    case .priceIncreaseDeclined: .priceIncreaseDeclined
    case .productUnavailable: .productUnavailable
    case .replaced: .replaced
    case .other, nil: .lapsed
    }
  }
}

extension GooglePlaySubscriptionState {
  /// States that say, by themselves, what an ended period turned into.
  var isReportedOutcome: Bool {
    switch self {
    case .paused, .onHold, .inGracePeriod, .expired, .canceled, .pendingPurchaseCanceled: true
    case .active, .pending, .unspecified: false
    }
  }
}

extension SubscriptionEvaluation {
  fileprivate mutating func describe(_ transaction: StoreTransaction) {
    productId = transaction.productId
    transactionId = transaction.transactionId
    isFamilyShared = transaction.ownershipType == .familyShared
  }

  /// Google Play after the paid period: its subscriptionState says what happened.
  fileprivate mutating func applyGooglePlay(
    _ googleState: GooglePlaySubscriptionState, info: RenewalInfo?, expiry: Int64, now: Int64, policy: GracePolicy
  ) {
    switch googleState {
    case .paused:
      state = .paused
      reason = .paused
      pausedUntilMs = info?.autoResumeTimeMs
    case .onHold:
      state = .onHold
      reason = .accountHold
    case .inGracePeriod:
      if let grace = info?.gracePeriodExpiresDateMs, grace > now, policy.honorStoreGracePeriod {
        state = .gracePeriod
        reason = .billingGracePeriod
        gracePeriodExpiresAtMs = grace
        accessEndsAtMs = grace
      } else if let grace = info?.gracePeriodExpiresDateMs, grace <= now {
        // Grace is over; Google puts the subscription on account hold next.
        state = .onHold
        reason = .accountHold
        if policy.honorStoreGracePeriod { accessEndsAtMs = max(expiry, grace) }
      } else {
        state = .billingRetry
        reason = .billingRetry
      }
    case .expired, .canceled, .pendingPurchaseCanceled, .active, .pending, .unspecified:
      state = .expired
    }
  }

  fileprivate func withFlags(info: RenewalInfo?, store: Store, groups: [SubscriptionGroup]) -> SubscriptionEvaluation {
    var result = self
    let ended = state == .expired || state == .revoked
    result.willRenew = !ended && (info?.willAutoRenew ?? false)
    if !ended, let next = info?.autoRenewProductId, !next.isEmpty, next != productId {
      result.pendingProductChange = ProductChange(from: productId, to: next, store: store, groups: groups)
    }
    result.priceIncreaseConsentPending = result.willRenew && info?.priceIncreaseStatus == .pending
    return result
  }
}
