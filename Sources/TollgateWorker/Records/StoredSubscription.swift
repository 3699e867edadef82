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
  /// The store's own id of the buyer, where the store needs it to read the purchase (the Amazon
  /// user id that owns a receipt); nil elsewhere.
  public var storeUserId: String?
  public var verifiedAtMs: Int64
  /// When the worker should verify it again.
  public var nextCheckAtMs: Int64?
  /// Store calls that failed in a row since the last success.
  public var failures: Int
  /// How many times the chain was written (`WorkerStorage.apply`): 0 for a chain never stored,
  /// filled in by storage on every read. A change is applied only if the chain is still at the
  /// version it was computed from (`SubscriptionChange.expectedVersion`).
  public var version: Int64
  /// When a GDPR erase unbound the chain (`WorkerStorage.eraseUser`): it binds again only with
  /// fresh proof (`ClaimRuling`), and a claim that binds it clears this. Nil otherwise.
  public var erasedAtMs: Int64?

  public init(
    store: Store, purchaseId: String, appId: String, userId: String?, history: SubscriptionHistory,
    evidence: VerificationEvidence, state: SubscriptionState, reason: String, productId: String, willRenew: Bool,
    expiresAtMs: Int64, accessEndsAtMs: Int64, appAccountToken: String?, storeUserId: String? = nil,
    verifiedAtMs: Int64, nextCheckAtMs: Int64?, failures: Int = 0, version: Int64 = 0, erasedAtMs: Int64? = nil
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
    self.storeUserId = storeUserId
    self.verifiedAtMs = verifiedAtMs
    self.nextCheckAtMs = nextCheckAtMs
    self.failures = failures
    self.version = version
    self.erasedAtMs = erasedAtMs
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

  /// Why the worker stopped reading the chain on its own schedule, and since when: the store said
  /// it no longer has the purchase (`StoreFailure.Kind.gone`). Kept with the last verified state;
  /// a later answer from the store (a notification, a submission) replaces the evidence and so
  /// ends it.
  public struct ChecksStopped: Sendable, Hashable, Codable {
    public var atMs: Int64
    /// The store's answer, in a sentence (`StoreFailure.message`).
    public var reason: String

    public init(atMs: Int64, reason: String) {
      self.atMs = atMs
      self.reason = reason
    }
  }

  /// Which store interface answered (`app_store_server_api`, `verify_receipt`).
  public var source: String
  public var environment: StoreEnvironment
  public var payloads: [Payload]
  public var verifiedAtMs: Int64
  /// Set when scheduled checks stopped for good (nil while they go on).
  public var checksStopped: ChecksStopped?

  public init(
    source: String, environment: StoreEnvironment, payloads: [Payload], verifiedAtMs: Int64,
    checksStopped: ChecksStopped? = nil
  ) {
    self.source = source
    self.environment = environment
    self.payloads = payloads
    self.verifiedAtMs = verifiedAtMs
    self.checksStopped = checksStopped
  }

  /// When the store signed the newest payload behind this state (nil: nothing signed, as with an
  /// unsigned store answer). An answer signed earlier than the state it would replace is stale.
  public var newestSignedAtMs: Int64? { payloads.compactMap(\.signedAtMs).max() }
}
