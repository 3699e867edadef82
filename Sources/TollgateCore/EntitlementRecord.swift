/// One reason a user has (or had) an entitlement: the verified, computed state that the worker
/// writes and the service indexes.
///
/// A user may hold the same entitlement through several sources (two subscriptions on two stores,
/// a promotional grant); `source` tells them apart.
public struct EntitlementRecord: Sendable, Hashable, Codable {
  public var userId: String
  public var entitlement: String
  /// What grants it: `app_store:<originalTransactionId>`, `google_play:<purchaseToken>`,
  /// `amazon:<receiptId>`, `promotional:<grantId>`.
  public var source: String
  public var store: Store
  public var productId: String
  public var environment: StoreEnvironment
  /// The state as last verified.
  public var state: SubscriptionState
  public var willRenew: Bool
  /// When the current period ends per the store (ms since epoch, UTC).
  public var expiresAtMs: Int64
  /// When access ends under the configured policy (grace period, renewal leeway); `>= expiresAtMs`
  /// for entitled states. Access is evaluated against this at query time.
  public var accessEndsAtMs: Int64
  /// When the worker last verified this against the store.
  public var verifiedAtMs: Int64
  /// The lifecycle rule that decided `state` (`current_period`, `store_unreachable`, ...); nil for
  /// a grant, or a record written before reasons were kept.
  public var reason: StateReason?

  public init(
    userId: String,
    entitlement: String,
    source: String,
    store: Store,
    productId: String,
    environment: StoreEnvironment,
    state: SubscriptionState,
    willRenew: Bool,
    expiresAtMs: Int64,
    accessEndsAtMs: Int64,
    verifiedAtMs: Int64,
    reason: StateReason? = nil
  ) {
    self.userId = userId
    self.entitlement = entitlement
    self.source = source
    self.store = store
    self.productId = productId
    self.environment = environment
    self.state = state
    self.willRenew = willRenew
    self.expiresAtMs = expiresAtMs
    self.accessEndsAtMs = accessEndsAtMs
    self.verifiedAtMs = verifiedAtMs
    self.reason = reason
  }
}

extension EntitlementRecord {
  /// The store's own id from `source` (`app_store:<originalTransactionId>` → the id).
  public var storeSubscriptionId: String { Self.storeSubscriptionId(fromSource: source) }

  public static func storeSubscriptionId(fromSource source: String) -> String {
    guard let colon = source.firstIndex(of: ":") else { return source }
    return String(source[source.index(after: colon)...])
  }
}
