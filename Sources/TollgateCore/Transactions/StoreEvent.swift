/// One store report about a purchase chain: a notification or an API read, normalized.
///
/// An event carries snapshots (the transactions and renewal info it contained); `kind` says what
/// happened, for logs and outbound events. The lifecycle is computed from the snapshots, never
/// from `kind`, so a lost or duplicated notification cannot derail it.
public struct StoreEvent: Sendable, Hashable, Codable {
  /// Apple `notificationUUID`, Google Pub/Sub `messageId`, or an id the worker derives for a read.
  public var eventId: String
  public var store: Store
  /// Apple `originalTransactionId`, Google `purchaseToken`, Amazon `receiptId`.
  public var purchaseId: String
  public var kind: StoreEventKind
  /// Apple `signedDate`, Google `eventTimeMillis`, or the time of the API read.
  public var occurredAtMs: Int64
  public var environment: StoreEnvironment
  /// The periods the event carried (often just one).
  public var transactions: [StoreTransaction]
  /// The renewal info the event carried, if any.
  public var renewalInfo: RenewalInfo?
  public var linkedPurchaseToken: String?
  public var parentProductId: String?

  public init(
    eventId: String,
    store: Store,
    purchaseId: String,
    kind: StoreEventKind,
    occurredAtMs: Int64,
    environment: StoreEnvironment = .production,
    transactions: [StoreTransaction] = [],
    renewalInfo: RenewalInfo? = nil,
    linkedPurchaseToken: String? = nil,
    parentProductId: String? = nil
  ) {
    self.eventId = eventId
    self.store = store
    self.purchaseId = purchaseId
    self.kind = kind
    self.occurredAtMs = occurredAtMs
    self.environment = environment
    self.transactions = transactions
    self.renewalInfo = renewalInfo
    self.linkedPurchaseToken = linkedPurchaseToken
    self.parentProductId = parentProductId
  }
}

/// What a store event reports, in one vocabulary for the three stores.
public enum StoreEventKind: String, Sendable, Hashable, Codable, CaseIterable {
  case purchased
  case renewed
  case recovered
  case resubscribed
  case renewalFailed = "renewal_failed"
  case gracePeriodStarted = "grace_period_started"
  case gracePeriodExpired = "grace_period_expired"
  case onHold = "on_hold"
  case autoRenewEnabled = "auto_renew_enabled"
  case autoRenewDisabled = "auto_renew_disabled"
  case productChanged = "product_changed"
  case productChangeScheduled = "product_change_scheduled"
  case productChangeCanceled = "product_change_canceled"
  case priceIncrease = "price_increase"
  case paused
  case pauseScheduleChanged = "pause_schedule_changed"
  case expired
  case refunded
  case refundReversed = "refund_reversed"
  case revoked
  case renewalExtended = "renewal_extended"
  case offerRedeemed = "offer_redeemed"
  /// Anything that does not change the lifecycle (TEST, CONSUMPTION_REQUEST, …).
  case informational
}
