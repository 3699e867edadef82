/// Everything known about one store purchase chain: an Apple `originalTransactionId`, a Google
/// Play `purchaseToken`, or an Amazon `receiptId`, with all its periods and the latest renewal
/// info.
public struct SubscriptionHistory: Sendable, Hashable, Codable {
  public var store: Store
  /// Apple `originalTransactionId`, Google `purchaseToken`, Amazon `receiptId`.
  public var purchaseId: String
  public var environment: StoreEnvironment
  /// Every period of the chain, in any order.
  public var transactions: [StoreTransaction]
  /// The latest renewal info, if the store gave any.
  public var renewalInfo: RenewalInfo?
  /// Google `linkedPurchaseToken`: the purchase this one replaced (upgrade, downgrade, re-signup).
  public var linkedPurchaseToken: String?
  /// Amazon `parentProductId`: the subscription all terms and tiers of this receipt belong to.
  public var parentProductId: String?
  /// When another purchase replaced this one (Google linked token, Amazon tier change); access
  /// from this chain ends then. See `SubscriptionReplacements`.
  public var replacedAtMs: Int64?
  /// When this snapshot was verified against the store.
  public var asOfMs: Int64

  public init(
    store: Store,
    purchaseId: String,
    environment: StoreEnvironment = .production,
    transactions: [StoreTransaction],
    renewalInfo: RenewalInfo? = nil,
    linkedPurchaseToken: String? = nil,
    parentProductId: String? = nil,
    replacedAtMs: Int64? = nil,
    asOfMs: Int64 = 0
  ) {
    self.store = store
    self.purchaseId = purchaseId
    self.environment = environment
    self.transactions = transactions
    self.renewalInfo = renewalInfo
    self.linkedPurchaseToken = linkedPurchaseToken
    self.parentProductId = parentProductId
    self.replacedAtMs = replacedAtMs
    self.asOfMs = asOfMs
  }

  /// The `EntitlementRecord.source` for this chain: `app_store:<originalTransactionId>`,
  /// `google_play:<purchaseToken>`, `amazon:<receiptId>`.
  public var source: String { "\(store.rawValue):\(purchaseId)" }

  /// The first time the chain started, or `nil` with no transactions.
  public var firstPurchaseDateMs: Int64? { transactions.map(\.purchaseDateMs).min() }
}
