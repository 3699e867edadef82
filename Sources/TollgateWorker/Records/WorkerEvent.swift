import TollgateCore

/// An outbound event: one change of one subscription (or of one promotional grant) that a
/// company's backends may act on. `docs/webhooks.md` describes each kind and its payload.
public struct WorkerEvent: Sendable, Hashable {
  public var userId: String?
  /// One of `WorkerEvent.kinds`.
  public var kind: String
  public var store: Store
  /// The chain (originalTransactionId / purchaseToken / receiptId), or a grant's id.
  public var purchaseId: String
  public var productId: String?
  public var state: SubscriptionState?
  public var atMs: Int64
  public var detail: String?
  /// What webhook payloads of version 2 carry besides the above.
  public var details: EventDetails
  /// The request whose inbox item caused the event (`InboxItem.requestId`), sent with its
  /// webhooks as `Tollgate-Request-Id`; nil when no request did (a scheduled check, a grant).
  public var requestId: String?

  public init(
    userId: String?, kind: String, store: Store, purchaseId: String, productId: String?, state: SubscriptionState?,
    atMs: Int64, detail: String? = nil, details: EventDetails = EventDetails(), requestId: String? = nil
  ) {
    self.userId = userId
    self.kind = kind
    self.store = store
    self.purchaseId = purchaseId
    self.productId = productId
    self.state = state
    self.atMs = atMs
    self.detail = detail
    self.details = details
    self.requestId = requestId
  }

  /// Every kind the worker emits.
  /// - purchased: a new purchase (a first purchase, or a resubscription after the last one ended);
  ///   never a plan change.
  /// - renewed, trial_converted (the first paid period after a free trial is billed), opted_out,
  ///   opted_in, billing_issue, grace_started, recovered, paused, expired.
  /// - product_changed: an upgrade, downgrade or crossgrade in any store (`EventDetails.productChange`),
  ///   announced once, when the store first reports it; product_change_canceled: a change announced
  ///   for the next renewal was withdrawn before it took effect.
  /// - refunded, revoked: the store took a period back, once per period, with the reason
  ///   (`EventDetails.reason`: refunded, revoked, family_sharing_revoked).
  /// - granted, grant_revoked: an operator's promotional grant (`EventDetails.grant`).
  /// - transferred, transfer_refused (the policy keeps the purchase with its owner, or the claim
  ///   carried no fresh payload the store signed), claim_refused (the purchase's app account token
  ///   names another user, or a caller not trusted with bare ids claimed with one).
  public static let kinds: [String] = [
    "purchased", "renewed", "trial_converted", "opted_out", "opted_in", "billing_issue", "grace_started", "recovered",
    "paused", "expired", "product_changed", "product_change_canceled", "refunded", "revoked", "granted",
    "grant_revoked", "transferred", "transfer_refused", "claim_refused",
  ]
}

/// The parts of an event that version 2 of the webhook payload adds. Stored with the event as
/// JSON, so a redelivery sends the same bytes; fields a store does not report stay nil.
public struct EventDetails: Sendable, Hashable, Codable {
  /// Where the purchase was made (a Google test purchase reads as `license_tester` in payloads).
  public var environment: StoreEnvironment?
  /// The transaction (Apple transactionId, Google orderId, Amazon receiptId) the event is about.
  public var transactionId: String?
  /// trial, intro or normal: the period the state rests on.
  public var periodType: PeriodType?
  /// When the current (or last) paid period ends per the store.
  public var expiresAtMs: Int64?
  /// Price of the transaction in milliunits of `currency` (Apple's signed transactions report it).
  public var priceMilli: Int64?
  /// ISO 4217.
  public var currency: String?
  /// The storefront (Apple: ISO 3166-1 alpha-3).
  public var storefront: String?
  /// For product_changed and product_change_canceled.
  public var productChange: EventProductChange?
  /// Why: a refund's or revocation's reason, or why a subscription expired.
  public var reason: String?
  /// For granted and grant_revoked.
  public var grant: EventGrant?
  /// The user's entitlements this event touched, as they stand after it (filled in by the storage
  /// in the transaction that writes the event).
  public var entitlements: [AffectedEntitlement]?

  public init(
    environment: StoreEnvironment? = nil, transactionId: String? = nil, periodType: PeriodType? = nil,
    expiresAtMs: Int64? = nil, priceMilli: Int64? = nil, currency: String? = nil, storefront: String? = nil,
    productChange: EventProductChange? = nil, reason: String? = nil, grant: EventGrant? = nil,
    entitlements: [AffectedEntitlement]? = nil
  ) {
    self.environment = environment
    self.transactionId = transactionId
    self.periodType = periodType
    self.expiresAtMs = expiresAtMs
    self.priceMilli = priceMilli
    self.currency = currency
    self.storefront = storefront
    self.productChange = productChange
    self.reason = reason
    self.grant = grant
    self.entitlements = entitlements
  }

  /// The kind of period: a free trial, an introductory offer, or the regular price.
  public enum PeriodType: String, Sendable, Hashable, Codable, CaseIterable {
    case trial
    case intro
    case normal
  }
}

/// A change of product: direction by the catalog's subscription group levels.
public struct EventProductChange: Sendable, Hashable, Codable {
  /// upgrade, downgrade or crossgrade; nil when no group ranks both products.
  public var direction: ProductChangeKind?
  public var fromProductId: String
  public var toProductId: String
  /// When the new product takes effect (now for an immediate change, the next renewal for a
  /// deferred one).
  public var effectiveAtMs: Int64
  /// The purchase replaced, when the new product is another purchase (Google's linked token, an
  /// Amazon receipt of another tier); nil when the same chain changes product (Apple).
  public var fromPurchaseId: String?

  public init(
    direction: ProductChangeKind?, fromProductId: String, toProductId: String, effectiveAtMs: Int64,
    fromPurchaseId: String? = nil
  ) {
    self.direction = direction
    self.fromProductId = fromProductId
    self.toProductId = toProductId
    self.effectiveAtMs = effectiveAtMs
    self.fromPurchaseId = fromPurchaseId
  }
}

/// An operator's promotional grant, and who changed it.
public struct EventGrant: Sendable, Hashable, Codable {
  public var entitlement: String
  public var expiresAtMs: Int64?
  public var note: String?
  /// Who ran the command (`tollgate grant --by`, else the operating-system user).
  public var actor: String?

  public init(entitlement: String, expiresAtMs: Int64?, note: String?, actor: String?) {
    self.entitlement = entitlement
    self.expiresAtMs = expiresAtMs
    self.note = note
    self.actor = actor
  }
}

/// One entitlement of the user after an event: whether it is active and until when.
public struct AffectedEntitlement: Sendable, Hashable, Codable {
  public var entitlement: String
  public var active: Bool
  /// The state of the record that decides it; nil when no record grants it any more.
  public var state: SubscriptionState?
  public var expiresAtMs: Int64?
  public var accessEndsAtMs: Int64?
  /// The record's source (`app_store:<originalTransactionId>`, `promotional:<grantId>`, …).
  public var source: String?

  public init(
    entitlement: String, active: Bool, state: SubscriptionState?, expiresAtMs: Int64?, accessEndsAtMs: Int64?,
    source: String?
  ) {
    self.entitlement = entitlement
    self.active = active
    self.state = state
    self.expiresAtMs = expiresAtMs
    self.accessEndsAtMs = accessEndsAtMs
    self.source = source
  }
}

/// An event as stored, with its sequence number (the delivery order) and its id.
public struct StoredEvent: Sendable, Hashable {
  /// The delivery order; a fresh database starts again at 1.
  public var id: Int64
  /// A random UUID given when the event was written: the same on every redelivery, never reused.
  public var eventId: String
  public var event: WorkerEvent

  public init(id: Int64, eventId: String? = nil, event: WorkerEvent) {
    self.id = id
    self.eventId = eventId ?? Self.placeholderId(id)
    self.event = event
  }

  /// The id of an event without one (never written by this version's storage).
  static func placeholderId(_ id: Int64) -> String {
    let hex = String(UInt64(bitPattern: id), radix: 16)
    let padded = String(repeating: "0", count: max(0, 12 - hex.count)) + hex
    return "00000000-0000-4000-8000-" + padded.suffix(12)
  }
}
