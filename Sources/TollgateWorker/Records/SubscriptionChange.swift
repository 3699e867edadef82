import TollgateCore

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
    revocationReason: String?, offerType: String?, environment: StoreEnvironment, payloadSHA256: String?,
    signedAtMs: Int64?
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

  /// The row of a mapped transaction (a store whose answers carry no per-transaction payload:
  /// the answer's hash stands for it). A transaction that never expires records no expiry.
  public init(
    _ transaction: StoreTransaction, environment: StoreEnvironment, payloadSHA256: String?, signedAtMs: Int64?
  ) {
    self.init(
      storeTransactionId: transaction.transactionId, productId: transaction.productId,
      purchasedAtMs: transaction.purchaseDateMs,
      expiresAtMs: transaction.expiresDateMs == Int64.max ? nil : transaction.expiresDateMs,
      revokedAtMs: transaction.revocationDateMs, revocationReason: transaction.revocationReason?.rawValue,
      offerType: transaction.offerType?.rawValue, environment: environment, payloadSHA256: payloadSHA256,
      signedAtMs: signedAtMs)
  }
}

/// Everything one verification writes, atomically.
public struct SubscriptionChange: Sendable {
  public var subscription: StoredSubscription
  public var transactions: [TransactionRow]
  public var events: [WorkerEvent]
  /// The inbox item this change completes, under the claim the worker holds, with its final
  /// state and outcome. `apply` writes nothing (`StorageConflict.claimLost`) when that claim was lost.
  public var completes: InboxCompletion?
  /// Another user whose entitlements change too (the previous owner after a transfer).
  public var alsoRecompute: String?
  /// For the change feed.
  public var reason: String
  public var nowMs: Int64
  /// The chain's `StoredSubscription.version` the change was computed from (0: the chain was
  /// not stored). `apply` writes nothing (`StorageConflict.chainChanged`) when the stored
  /// version is another one by then: a newer write must never be overwritten by an older read.
  public var expectedVersion: Int64

  public init(
    subscription: StoredSubscription, transactions: [TransactionRow], events: [WorkerEvent],
    completes: InboxCompletion?, alsoRecompute: String?, reason: String,
    nowMs: Int64, expectedVersion: Int64 = 0
  ) {
    self.subscription = subscription
    self.transactions = transactions
    self.events = events
    self.completes = completes
    self.alsoRecompute = alsoRecompute
    self.reason = reason
    self.nowMs = nowMs
    self.expectedVersion = expectedVersion
  }
}

/// Computes a user's entitlement records from all their subscriptions and grants.
public typealias EntitlementRecompute =
  @Sendable (_ userId: String, _ subscriptions: [StoredSubscription], _ grants: [PromotionalGrant]) ->
  [EntitlementRecord]

/// The records of each recomputed user before and after a change.
public typealias RecordChanges = [String: (before: [EntitlementRecord], after: [EntitlementRecord])]
