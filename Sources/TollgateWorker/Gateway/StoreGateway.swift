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

  /// Verifies what a submission names, and returns the chain to read.
  func identify(_ submission: PurchaseSubmission) async throws(StoreFailure) -> ChainReference

  /// Verifies and decodes a stored notification of one of `notificationRoutes`.
  func verifyNotification(_ payload: [UInt8], route: String) async throws(StoreFailure) -> NotificationVerdict

  /// Reads and verifies the authoritative state of a chain from the store.
  func fetchChain(_ reference: ChainReference) async throws(StoreFailure) -> VerifiedChain

  /// How to read a stored chain again (scheduled checks); nil when its app is no longer configured.
  func reference(for subscription: StoredSubscription) -> ChainReference?
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

  public init(
    store: Store, appId: String, lookupId: String, purchaseId: String? = nil, environment: StoreEnvironment?,
    notSignedBeforeMs: Int64? = nil
  ) {
    self.store = store
    self.appId = appId
    self.lookupId = lookupId
    self.purchaseId = purchaseId
    self.environment = environment
    self.notSignedBeforeMs = notSignedBeforeMs
  }

  /// Two reads of one chain never interleave: the key names the chain as well as it is known.
  var lockKey: String { ChainLockKey.of(store: store, purchaseId: purchaseId ?? lookupId) }
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

  public init(
    store: Store, appId: String, purchaseId: String, history: SubscriptionHistory, transactions: [TransactionRow],
    evidence: VerificationEvidence, appAccountToken: String?
  ) {
    self.store = store
    self.appId = appId
    self.purchaseId = purchaseId
    self.history = history
    self.transactions = transactions
    self.evidence = evidence
    self.appAccountToken = appAccountToken
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
