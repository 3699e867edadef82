import TollgateCore

/// What the worker stores about one purchase chain.
public struct StoredSubscription: Sendable, Hashable {
  public var store: Store
  /// originalTransactionId / purchaseToken / receiptId.
  public var purchaseId: String
  /// Bundle id / package name / Amazon app.
  public var appId: String
  /// The user it is bound to; nil until someone submits it (a notification can come first).
  public var userId: String?
  public var history: SubscriptionHistory
  public var evidence: VerificationEvidence
  /// The last evaluation.
  public var state: SubscriptionState
  /// The rule that decided the state (`SubscriptionEvaluation.reason`).
  public var reason: String
  public var productId: String
  public var willRenew: Bool
  public var expiresAtMs: Int64
  public var accessEndsAtMs: Int64
  public var appAccountToken: String?
  public var verifiedAtMs: Int64
  /// When the worker should verify it again.
  public var nextCheckAtMs: Int64?
  /// Store calls that failed in a row since the last success.
  public var failures: Int

  public init(
    store: Store, purchaseId: String, appId: String, userId: String?, history: SubscriptionHistory,
    evidence: VerificationEvidence, state: SubscriptionState, reason: String, productId: String, willRenew: Bool,
    expiresAtMs: Int64, accessEndsAtMs: Int64, appAccountToken: String?, verifiedAtMs: Int64, nextCheckAtMs: Int64?,
    failures: Int = 0
  ) {
    self.store = store
    self.purchaseId = purchaseId
    self.appId = appId
    self.userId = userId
    self.history = history
    self.evidence = evidence
    self.state = state
    self.reason = reason
    self.productId = productId
    self.willRenew = willRenew
    self.expiresAtMs = expiresAtMs
    self.accessEndsAtMs = accessEndsAtMs
    self.appAccountToken = appAccountToken
    self.verifiedAtMs = verifiedAtMs
    self.nextCheckAtMs = nextCheckAtMs
    self.failures = failures
  }
}

/// Where a verified state came from, kept with every write so `tollgate explain` can show it.
public struct VerificationEvidence: Sendable, Hashable, Codable {
  public struct Payload: Sendable, Hashable, Codable {
    /// `transaction`, `renewal_info`, `notification`, `verify_receipt`.
    public var kind: String
    /// The store's id of the payload (transactionId, notificationUUID, …).
    public var id: String
    /// SHA-256 of the payload as received (hex): identifies it without storing it.
    public var sha256: String
    public var signedAtMs: Int64?

    public init(kind: String, id: String, sha256: String, signedAtMs: Int64?) {
      self.kind = kind
      self.id = id
      self.sha256 = sha256
      self.signedAtMs = signedAtMs
    }
  }

  /// Which store interface answered (`app_store_server_api`, `verify_receipt`).
  public var source: String
  public var environment: StoreEnvironment
  public var payloads: [Payload]
  public var verifiedAtMs: Int64

  public init(source: String, environment: StoreEnvironment, payloads: [Payload], verifiedAtMs: Int64) {
    self.source = source
    self.environment = environment
    self.payloads = payloads
    self.verifiedAtMs = verifiedAtMs
  }
}

/// One item of the durable inbox.
public struct InboxItem: Sendable, Hashable {
  public enum Kind: String, Sendable, Hashable {
    case purchase
    case notification
  }

  public var id: Int64
  public var kind: Kind
  /// For notifications, the route's name (`app_store.v2`, `app_store.v1`); for purchases, the store.
  public var store: String
  public var userId: String?
  public var payload: [UInt8]
  public var attempts: Int
  public var receivedAtMs: Int64

  public init(id: Int64, kind: Kind, store: String, userId: String?, payload: [UInt8], attempts: Int, receivedAtMs: Int64) {
    self.id = id
    self.kind = kind
    self.store = store
    self.userId = userId
    self.payload = payload
    self.attempts = attempts
    self.receivedAtMs = receivedAtMs
  }
}

/// An outbound event: one state change of one subscription.
public struct WorkerEvent: Sendable, Hashable {
  public var userId: String?
  /// purchased, renewed, trial_converted, opted_out, opted_in, billing_issue, grace_started,
  /// recovered, expired, refunded, revoked, upgraded, transferred, transfer_refused.
  public var kind: String
  public var store: Store
  public var purchaseId: String
  public var productId: String?
  public var state: SubscriptionState?
  public var atMs: Int64
  public var detail: String?

  public init(
    userId: String?, kind: String, store: Store, purchaseId: String, productId: String?, state: SubscriptionState?,
    atMs: Int64, detail: String? = nil
  ) {
    self.userId = userId
    self.kind = kind
    self.store = store
    self.purchaseId = purchaseId
    self.productId = productId
    self.state = state
    self.atMs = atMs
    self.detail = detail
  }
}

/// One verified store transaction, as recorded.
public struct TransactionRow: Sendable, Hashable {
  public var storeTransactionId: String
  public var productId: String
  public var purchasedAtMs: Int64
  public var expiresAtMs: Int64?
  public var revokedAtMs: Int64?
  public var revocationReason: String?
  public var offerType: String?
  public var environment: StoreEnvironment
  public var payloadSHA256: String?
  public var signedAtMs: Int64?

  public init(
    storeTransactionId: String, productId: String, purchasedAtMs: Int64, expiresAtMs: Int64?, revokedAtMs: Int64?,
    revocationReason: String?, offerType: String?, environment: StoreEnvironment, payloadSHA256: String?, signedAtMs: Int64?
  ) {
    self.storeTransactionId = storeTransactionId
    self.productId = productId
    self.purchasedAtMs = purchasedAtMs
    self.expiresAtMs = expiresAtMs
    self.revokedAtMs = revokedAtMs
    self.revocationReason = revocationReason
    self.offerType = offerType
    self.environment = environment
    self.payloadSHA256 = payloadSHA256
    self.signedAtMs = signedAtMs
  }
}

/// Everything one verification writes, atomically.
public struct SubscriptionChange: Sendable {
  public var subscription: StoredSubscription
  public var transactions: [TransactionRow]
  public var events: [WorkerEvent]
  /// The inbox item this change completes, with its final state and outcome.
  public var completes: (id: Int64, state: SubmissionState, outcome: String)?
  /// Another user whose entitlements change too (the previous owner after a transfer).
  public var alsoRecompute: String?
  /// For the change feed.
  public var reason: String
  public var nowMs: Int64

  public init(
    subscription: StoredSubscription, transactions: [TransactionRow], events: [WorkerEvent],
    completes: (id: Int64, state: SubmissionState, outcome: String)?, alsoRecompute: String?, reason: String, nowMs: Int64
  ) {
    self.subscription = subscription
    self.transactions = transactions
    self.events = events
    self.completes = completes
    self.alsoRecompute = alsoRecompute
    self.reason = reason
    self.nowMs = nowMs
  }
}

/// Computes a user's entitlement records from all their subscriptions and grants.
public typealias EntitlementRecompute =
  @Sendable (_ userId: String, _ subscriptions: [StoredSubscription], _ grants: [PromotionalGrant]) -> [EntitlementRecord]
