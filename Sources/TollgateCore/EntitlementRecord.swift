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
  /// The purchases this record's purchase replaced, newest first: Google Play's
  /// `linkedPurchaseToken` chain (an upgrade, downgrade or re-signup is a new purchase token
  /// linked to the one before). Empty for every other source.
  public var replaces: [String] = []

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
    reason: StateReason? = nil,
    replaces: [String] = []
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
    self.replaces = replaces
  }

  enum CodingKeys: String, CodingKey {
    case userId, entitlement, source, store, productId, environment, state, willRenew, expiresAtMs, accessEndsAtMs,
      verifiedAtMs, reason, replaces
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      userId: try c.decode(String.self, forKey: .userId), entitlement: try c.decode(String.self, forKey: .entitlement),
      source: try c.decode(String.self, forKey: .source), store: try c.decode(Store.self, forKey: .store),
      productId: try c.decode(String.self, forKey: .productId),
      environment: try c.decode(StoreEnvironment.self, forKey: .environment),
      state: try c.decode(SubscriptionState.self, forKey: .state),
      willRenew: try c.decode(Bool.self, forKey: .willRenew),
      expiresAtMs: try c.decode(Int64.self, forKey: .expiresAtMs),
      accessEndsAtMs: try c.decode(Int64.self, forKey: .accessEndsAtMs),
      verifiedAtMs: try c.decode(Int64.self, forKey: .verifiedAtMs),
      reason: try c.decodeIfPresent(StateReason.self, forKey: .reason),
      // Records written before chains were kept have none.
      replaces: try c.decodeIfPresent([String].self, forKey: .replaces) ?? [])
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
