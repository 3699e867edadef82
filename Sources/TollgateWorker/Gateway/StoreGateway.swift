import TollgateCore

/// The worker's door to one store: what a submission names, what a notification says, and the
/// authoritative state of a purchase chain, every signed payload verified before it is believed.
/// The worker owns this seam; the App Store implements it now (`AppStoreGateway`), Google Play
/// and the Amazon Appstore next, and the unit tests fake it. Every failure is a `StoreFailure`,
/// classified by the gateway: the worker never looks at a store's own errors.
public protocol StoreGateway: Sendable {
  /// The store this gateway speaks for; the worker picks a gateway by an item's store.
  var store: Store { get }

  /// The HTTP endpoints the store posts its notifications to.
  var notificationRoutes: [NotificationRoute] { get }

  /// Verifies what a submission names, and returns the chain to read, with what the submission
  /// proves about its buyer (`ChainReference.claimEvidence`).
  func identify(_ submission: PurchaseSubmission) async throws(StoreFailure) -> ChainReference

  /// Verifies and decodes a stored notification of one of `notificationRoutes`.
  func verifyNotification(_ payload: [UInt8], route: String) async throws(StoreFailure) -> NotificationVerdict

  /// Reads and verifies the authoritative state of a chain from the store.
  func fetchChain(_ reference: ChainReference) async throws(StoreFailure) -> VerifiedChain

  /// How to read a stored chain again (scheduled checks); nil when its app is no longer configured.
  func reference(for subscription: StoredSubscription) -> ChainReference?

  /// Chains the store lists as changed since `sinceMs` outside its notifications (Google's voided
  /// purchases: refunds whose notification was lost), to read again. Asked on the daily sweep.
  func sweep(sinceMs: Int64) async throws(StoreFailure) -> [ChainReference]

  /// Tells the store a verified purchase was delivered to its buyer (Google's acknowledgement,
  /// without which Google refunds it after 3 days), for a chain whose `acknowledgement` is set.
  func acknowledge(_ chain: VerifiedChain) async throws(StoreFailure)

  /// The limiter every call to the store goes through, for the worker to share the deployment's
  /// request budget with (`StoreCallLimiter.share`); nil for a gateway that calls no store.
  var callLimiter: StoreCallLimiter? { get }
}

extension StoreGateway {
  public var callLimiter: StoreCallLimiter? { nil }

  /// A store with nothing to list outside its notifications.
  public func sweep(sinceMs: Int64) async throws(StoreFailure) -> [ChainReference] { [] }

  /// A store that needs no acknowledgement.
  public func acknowledge(_ chain: VerifiedChain) async throws(StoreFailure) {}
}

/// A purchase chain to read from its store.
public struct ChainReference: Sendable, Hashable {
  public var store: Store
  /// Bundle id / package name / Amazon app.
  public var appId: String
  /// The id the store looks the chain up by (a transactionId, a purchaseToken, a receiptId).
  public var lookupId: String
  /// The chain's own id when already known (originalTransactionId / purchaseToken / receiptId).
  public var purchaseId: String?
  /// Where the purchase was made, when known.
  public var environment: StoreEnvironment?
  /// When the store signed what asked for this read (a notification): an answer signed earlier
  /// predates it (a caching proxy, replication lag at the store) and is not applied.
  public var notSignedBeforeMs: Int64?
  /// Refunds and chargebacks the store's API reported outside the purchase's own answer when
  /// asked (Google's voided purchases list, read for a notification or by the sweep), never what
  /// a notification's body claims: the reconciler applies them to the chain it reads.
  public var revocations: [ReportedRevocation]
  /// The store's id of the buyer, where the store needs it to read the purchase (the Amazon user
  /// id that owns a receipt).
  public var storeUserId: String?
  /// Other chains of the same store the store says this change touched (Amazon's
  /// `relatedReceipts`: the receipt a tier change cancelled): read again soon after this one.
  public var relatedPurchaseIds: [String]
  /// What the submission this reference was identified from proves about who bought the purchase
  /// (`StoreGateway.identify` sets it); nil for notifications and scheduled reads, and for a
  /// gateway that does not say, whose submissions count as bare identifiers.
  public var claimEvidence: ClaimEvidence?

  public init(
    store: Store, appId: String, lookupId: String, purchaseId: String? = nil, environment: StoreEnvironment?,
    notSignedBeforeMs: Int64? = nil, revocations: [ReportedRevocation] = [], storeUserId: String? = nil,
    relatedPurchaseIds: [String] = [], claimEvidence: ClaimEvidence? = nil
  ) {
    self.store = store
    self.appId = appId
    self.lookupId = lookupId
    self.purchaseId = purchaseId
    self.environment = environment
    self.notSignedBeforeMs = notSignedBeforeMs
    self.revocations = revocations
    self.storeUserId = storeUserId
    self.relatedPurchaseIds = relatedPurchaseIds
    self.claimEvidence = claimEvidence
  }

  /// Two reads of one chain never interleave: the key names the chain as well as it is known.
  var lockKey: String { ChainLockKey.of(store: store, purchaseId: purchaseId ?? lookupId) }
}

/// A refund or chargeback the store reported for a purchase (or one order of it) outside the
/// purchase's own answer.
public struct ReportedRevocation: Sendable, Hashable {
  /// The order voided (one renewal of a subscription); nil: the whole purchase.
  public var orderId: String?
  /// When access ends.
  public var revokedAtMs: Int64
  public var reason: RevocationReason

  public init(orderId: String?, revokedAtMs: Int64, reason: RevocationReason) {
    self.orderId = orderId
    self.revokedAtMs = revokedAtMs
    self.reason = reason
  }

  /// Whether the transaction `transactionId` is (part of) the voided order: ids are the order id,
  /// or the order id and a product id joined by `|` (an order of several line items).
  public func covers(transactionId: String) -> Bool {
    guard let orderId else { return true }
    return transactionId.split(separator: "|", maxSplits: 1).first.map(String.init) == orderId
  }
}

/// A verified purchase the store still waits to hear was delivered (Google refunds one that is
/// not acknowledged within 3 days of its purchase).
public struct PendingAcknowledgement: Sendable, Hashable {
  /// When the store refunds it if it is still not acknowledged.
  public var deadlineMs: Int64

  public init(deadlineMs: Int64) { self.deadlineMs = deadlineMs }
}

/// The verified state of one purchase chain, as the store answered.
public struct VerifiedChain: Sendable, Hashable {
  public var store: Store
  public var appId: String
  /// The chain's id (originalTransactionId / purchaseToken / receiptId).
  public var purchaseId: String
  public var history: SubscriptionHistory
  public var transactions: [TransactionRow]
  public var evidence: VerificationEvidence
  /// The buyer's id as the app told the store (App Store appAccountToken, Play's obfuscated account id).
  public var appAccountToken: String?
  /// Set when the store waits for an acknowledgement of this purchase (`StoreGateway.acknowledge`).
  public var acknowledgement: PendingAcknowledgement?
  /// The store's id of the buyer that owns the purchase (the Amazon user id), kept with the
  /// binding: reading the purchase again needs it, and a notification naming it finds the owner.
  public var storeUserId: String?

  public init(
    store: Store, appId: String, purchaseId: String, history: SubscriptionHistory, transactions: [TransactionRow],
    evidence: VerificationEvidence, appAccountToken: String?, acknowledgement: PendingAcknowledgement? = nil,
    storeUserId: String? = nil
  ) {
    self.store = store
    self.appId = appId
    self.purchaseId = purchaseId
    self.history = history
    self.transactions = transactions
    self.evidence = evidence
    self.appAccountToken = appAccountToken
    self.acknowledgement = acknowledgement
    self.storeUserId = storeUserId
  }
}

/// What a verified notification asks of the worker.
public enum NotificationVerdict: Sendable, Hashable {
  /// Nothing to read again (a test notification, a summary): the item ends with this outcome.
  case informational(outcome: String)
  /// Something changed in a chain: read it from the store. `signed` is what the notification's
  /// own signed payloads prove about the chain (its transaction and renewal info), nil when it
  /// carries none or is not signed: applied only when the store cannot be read, as far as it goes,
  /// until the store's full answer confirms it.
  case chainChanged(ChainReference, reason: String, signed: VerifiedChain?)
}

/// The key under which reads and writes of one chain never interleave (`ChainRefresher`).
enum ChainLockKey {
  static func of(store: Store, purchaseId: String) -> String { "\(store.rawValue):\(purchaseId)" }
}

extension VerifiedChain {
  /// The same key as the reference it was read by, when that named the chain's own id.
  var lockKey: String { ChainLockKey.of(store: store, purchaseId: purchaseId) }
}

extension SubscriptionHistory {
  /// This history with refunds and chargebacks the store reported outside its answer applied:
  /// each covered period counts as never bought from the revocation's time. An earlier
  /// revocation already recorded stays.
  func applying(_ revocations: [ReportedRevocation]) -> SubscriptionHistory {
    var result = self
    for revocation in revocations {
      for index in result.transactions.indices
      where revocation.covers(transactionId: result.transactions[index].transactionId) {
        if let earlier = result.transactions[index].revocationDateMs, earlier <= revocation.revokedAtMs { continue }
        result.transactions[index].revocationDateMs = revocation.revokedAtMs
        result.transactions[index].revocationReason = revocation.reason
      }
    }
    return result
  }
}
