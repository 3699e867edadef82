/// What the store says about the next renewal of a subscription, as of its latest report.
///
/// Store-neutral fields come first; the per-store ones are `nil` for the other stores.
public struct RenewalInfo: Sendable, Hashable, Codable {
  /// Apple `autoRenewStatus` == 1, Google `autoRenewingPlan.autoRenewEnabled`, Amazon
  /// `autoRenewing`.
  public var willAutoRenew: Bool
  /// The product the subscription renews into: Apple `autoRenewProductId`, Google
  /// `deferredItemReplacement.productId`, Amazon `deferredSku`. A value other than the current
  /// product means a product change is pending.
  public var autoRenewProductId: String?
  /// Why the subscription stopped or will stop renewing: Apple `expirationIntent`, Google
  /// `canceledStateContext`, Amazon `cancelReason`.
  public var expirationIntent: ExpirationIntent?
  /// Apple `isInBillingRetryPeriod`: the store is still trying to collect the renewal.
  public var isInBillingRetryPeriod: Bool
  /// End of the billing grace period: Apple `gracePeriodExpiresDate`, Amazon
  /// `gracePeriodEndDate`, Google line item `expiryTime` while `SUBSCRIPTION_STATE_IN_GRACE_PERIOD`.
  /// Only a value after the period's expiry counts as a grace period.
  public var gracePeriodExpiresDateMs: Int64?
  /// Apple `priceIncreaseStatus`, Google `priceChangeDetails.priceChangeState`.
  public var priceIncreaseStatus: PriceIncreaseStatus?

  /// Google `subscriptionState` as last reported.
  public var googlePlayState: GooglePlaySubscriptionState?
  /// Google `pausedStateContext.autoResumeTime`.
  public var autoResumeTimeMs: Int64?
  /// Google `acknowledgementState`; `false` while ACKNOWLEDGEMENT_STATE_PENDING.
  public var isAcknowledged: Bool?

  /// Amazon `cancelDate`: before the term ends it is a cancellation (refund) at that time,
  /// otherwise the date the subscription lapsed.
  public var cancelDateMs: Int64?

  public init(
    willAutoRenew: Bool,
    autoRenewProductId: String? = nil,
    expirationIntent: ExpirationIntent? = nil,
    isInBillingRetryPeriod: Bool = false,
    gracePeriodExpiresDateMs: Int64? = nil,
    priceIncreaseStatus: PriceIncreaseStatus? = nil,
    googlePlayState: GooglePlaySubscriptionState? = nil,
    autoResumeTimeMs: Int64? = nil,
    isAcknowledged: Bool? = nil,
    cancelDateMs: Int64? = nil
  ) {
    self.willAutoRenew = willAutoRenew
    self.autoRenewProductId = autoRenewProductId
    self.expirationIntent = expirationIntent
    self.isInBillingRetryPeriod = isInBillingRetryPeriod
    self.gracePeriodExpiresDateMs = gracePeriodExpiresDateMs
    self.priceIncreaseStatus = priceIncreaseStatus
    self.googlePlayState = googlePlayState
    self.autoResumeTimeMs = autoResumeTimeMs
    self.isAcknowledged = isAcknowledged
    self.cancelDateMs = cancelDateMs
  }
}

/// Why a subscription ended, in one vocabulary for the three stores.
public enum ExpirationIntent: String, Sendable, Hashable, Codable, CaseIterable {
  /// Apple expirationIntent 1; Google `userInitiatedCancellation`; Amazon cancelReason 1.
  case customerCanceled = "customer_canceled"
  /// Apple expirationIntent 2; Google `systemInitiatedCancellation`; Amazon cancelReason 2.
  case billingError = "billing_error"
  /// Apple expirationIntent 3: the customer did not consent to a price increase.
  case priceIncreaseDeclined = "price_increase_declined"
  /// Apple expirationIntent 4: the product was not for sale at renewal time.
  case productUnavailable = "product_unavailable"
  /// Google `replacementCancellation`; Amazon cancelReason 4: replaced by another subscription.
  case replaced
  /// Apple expirationIntent 5; Google `developerInitiatedCancellation`; Amazon cancelReason 0.
  case other

  /// Apple `expirationIntent` (1–5).
  public init?(appStoreExpirationIntent value: Int) {
    switch value {
    case 1: self = .customerCanceled
    case 2: self = .billingError
    case 3: self = .priceIncreaseDeclined
    case 4: self = .productUnavailable
    case 5: self = .other
    default: return nil
    }
  }

  /// Amazon RVS `cancelReason` (0, 1, 2, 4; 3 is internal to Amazon).
  public init?(amazonCancelReason value: Int) {
    switch value {
    case 0, 3: self = .other
    case 1: self = .customerCanceled
    case 2: self = .billingError
    case 4: self = .replaced
    default: return nil
    }
  }
}

/// Whether a price increase waits for the customer's consent.
public enum PriceIncreaseStatus: String, Sendable, Hashable, Codable, CaseIterable {
  /// Apple priceIncreaseStatus 0; Google priceChangeState OUTSTANDING.
  case pending
  /// Apple priceIncreaseStatus 1; Google priceChangeState CONFIRMED or APPLIED.
  case agreed
}

/// Google Play `subscriptionState` (purchases.subscriptionsv2).
public enum GooglePlaySubscriptionState: String, Sendable, Hashable, Codable, CaseIterable {
  case unspecified = "SUBSCRIPTION_STATE_UNSPECIFIED"
  case pending = "SUBSCRIPTION_STATE_PENDING"
  case active = "SUBSCRIPTION_STATE_ACTIVE"
  case paused = "SUBSCRIPTION_STATE_PAUSED"
  case inGracePeriod = "SUBSCRIPTION_STATE_IN_GRACE_PERIOD"
  case onHold = "SUBSCRIPTION_STATE_ON_HOLD"
  case canceled = "SUBSCRIPTION_STATE_CANCELED"
  case expired = "SUBSCRIPTION_STATE_EXPIRED"
  case pendingPurchaseCanceled = "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED"
}
