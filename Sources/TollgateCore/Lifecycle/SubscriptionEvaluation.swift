/// The state of one subscription (one purchase chain) at a moment: what `SubscriptionLifecycle`
/// computes from its history, and what the worker turns into `EntitlementRecord`s.
public struct SubscriptionEvaluation: Sendable, Hashable, Codable {
  public var store: Store
  /// Apple `originalTransactionId`, Google `purchaseToken`, Amazon `receiptId`.
  public var purchaseId: String
  public var environment: StoreEnvironment
  /// The product of the current period (or of the last one, once none is current).
  public var productId: String
  public var state: SubscriptionState
  /// Why the subscription is in `state`.
  public var reason: StateReason
  /// When the current (or last) paid period ends per the store.
  public var expiresAtMs: Int64
  /// When access ends under the policy: the expiry, the grace period end while in grace, or
  /// expiry + renewal leeway while auto-renew is on. For a state without access, a time no later
  /// than when access ended.
  public var accessEndsAtMs: Int64
  /// The store's billing grace period end, while in grace.
  public var gracePeriodExpiresAtMs: Int64?
  /// Whether the store will try to renew.
  public var willRenew: Bool
  /// A product change that takes effect at the next renewal (downgrade, or a crossgrade to
  /// another duration).
  public var pendingProductChange: ProductChange?
  /// A price increase waits for the customer's consent (Apple priceIncreaseStatus 0, Google
  /// priceChangeState OUTSTANDING).
  public var priceIncreaseConsentPending: Bool
  /// Shared with the user through Apple Family Sharing.
  public var isFamilyShared: Bool
  /// Bought in a sandbox / test environment.
  public var isSandbox: Bool
  /// Google Play: the purchase is not acknowledged yet (Google refunds it after three days).
  public var acknowledgementPending: Bool
  /// Google Play pause: when the subscription resumes by itself.
  public var pausedUntilMs: Int64?
  /// The transaction (Apple transactionId, Google orderId, Amazon receiptId) the state rests on.
  public var transactionId: String?
  /// The moment this was computed for.
  public var evaluatedAtMs: Int64

  public init(
    store: Store, purchaseId: String, environment: StoreEnvironment, productId: String,
    state: SubscriptionState, reason: StateReason, expiresAtMs: Int64, accessEndsAtMs: Int64,
    gracePeriodExpiresAtMs: Int64? = nil, willRenew: Bool, pendingProductChange: ProductChange? = nil,
    priceIncreaseConsentPending: Bool = false, isFamilyShared: Bool = false, isSandbox: Bool = false,
    acknowledgementPending: Bool = false, pausedUntilMs: Int64? = nil, transactionId: String? = nil,
    evaluatedAtMs: Int64
  ) {
    self.store = store
    self.purchaseId = purchaseId
    self.environment = environment
    self.productId = productId
    self.state = state
    self.reason = reason
    self.expiresAtMs = expiresAtMs
    self.accessEndsAtMs = accessEndsAtMs
    self.gracePeriodExpiresAtMs = gracePeriodExpiresAtMs
    self.willRenew = willRenew
    self.pendingProductChange = pendingProductChange
    self.priceIncreaseConsentPending = priceIncreaseConsentPending
    self.isFamilyShared = isFamilyShared
    self.isSandbox = isSandbox
    self.acknowledgementPending = acknowledgementPending
    self.pausedUntilMs = pausedUntilMs
    self.transactionId = transactionId
    self.evaluatedAtMs = evaluatedAtMs
  }

  /// `EntitlementRecord.source`: `app_store:<originalTransactionId>`, `google_play:<purchaseToken>`,
  /// `amazon:<receiptId>`.
  public var source: String { "\(store.rawValue):\(purchaseId)" }

  /// Whether the user has access at `evaluatedAtMs` under the default access policy.
  public var isEntitled: Bool { state.atQueryTime(accessEndsAtMs: accessEndsAtMs, nowMs: evaluatedAtMs).active }
}

/// Why a subscription is in its state.
public enum StateReason: String, Sendable, Hashable, Codable, CaseIterable {
  /// A paid, trial or intro period covers the moment.
  case currentPeriod = "current_period"
  /// The period ended, auto-renew is on, and the renewal may still land (renewal leeway).
  case renewalPending = "renewal_pending"
  /// Renewal failed; the store's billing grace period keeps access.
  case billingGracePeriod = "billing_grace_period"
  /// Renewal failed; the store keeps retrying without access.
  case billingRetry = "billing_retry"
  /// Google Play account hold.
  case accountHold = "account_hold"
  /// Google Play pause.
  case paused
  case customerCanceled = "customer_canceled"
  case billingError = "billing_error"
  case priceIncreaseDeclined = "price_increase_declined"
  case productUnavailable = "product_unavailable"
  /// Upgraded, downgraded or crossgraded into another purchase.
  case replaced
  /// Ended without a reason the store gave.
  case lapsed
  /// The period that would grant access now was refunded.
  case refunded
  /// The store revoked it without a refund.
  case revoked
  /// Apple Family Sharing stopped.
  case familySharingRevoked = "family_sharing_revoked"
  /// No period has started yet.
  case notStarted = "not_started"
  /// A purchase the store gives no expiry for (a non-renewing subscription, a one-time product)
  /// of a product the catalog gives no `duration` (nor `lifetime`): it grants nothing until the
  /// catalog says for how long it should.
  case durationNotConfigured = "duration_not_configured"
  /// The renewal is not confirmed and the store cannot be asked (an outage): access continues past
  /// the renewal leeway, up to the worker's outage limit, until the store answers.
  case storeUnreachable = "store_unreachable"
}

/// A change of product in the same subscription group.
public struct ProductChange: Sendable, Hashable, Codable {
  public var fromProductId: String
  public var toProductId: String
  /// Upgrade, downgrade or crossgrade by the configured group levels; `nil` when the products
  /// are not ranked in one group.
  public var kind: ProductChangeKind?

  public init(fromProductId: String, toProductId: String, kind: ProductChangeKind?) {
    self.fromProductId = fromProductId
    self.toProductId = toProductId
    self.kind = kind
  }

  /// Classifies a change by the levels of the group holding both products (level 1 is highest).
  public init(from: String, to: String, store: Store, groups: [SubscriptionGroup]) {
    let group = groups.first { group in
      (group.store == nil || group.store == store) && group.level(of: from) != nil && group.level(of: to) != nil
    }
    var kind: ProductChangeKind?
    if let group, let fromLevel = group.level(of: from), let toLevel = group.level(of: to) {
      kind = toLevel < fromLevel ? .upgrade : toLevel > fromLevel ? .downgrade : .crossgrade
    }
    self.init(fromProductId: from, toProductId: to, kind: kind)
  }
}

/// The direction of a product change within a group.
public enum ProductChangeKind: String, Sendable, Hashable, Codable, CaseIterable {
  case upgrade
  case downgrade
  case crossgrade
}
