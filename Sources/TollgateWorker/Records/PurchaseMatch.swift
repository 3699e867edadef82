import TollgateCore

/// How a stored identifier named a chain in `WorkerStorage.purchases(matching:store:kinds:limit:)`.
public enum PurchaseIdentifierKind: String, Sendable, Hashable, CaseIterable {
  /// The chain's own id (`store_subscription_id`): an App Store originalTransactionId, a Google
  /// Play purchase token, an Amazon receiptId.
  case purchaseId = "purchase_id"
  /// A transaction of the chain, exactly as stored (`store_transaction_id`): an App Store
  /// transactionId, a Google Play order id with its renewal suffix or line-item split, an Amazon
  /// receiptId.
  case transactionId = "transaction_id"
  /// A Google Play order id reduced to its first order (`transactions.order_id`): the first order,
  /// every renewal `..N` and every line item `|product`.
  case orderId = "order_id"
  /// The store's id of the buyer (`store_user_id`): the Amazon user id.
  case storeUserId = "store_user_id"
}

/// Which kinds of stored identifier a lookup compares.
public struct PurchaseIdentifierKinds: OptionSet, Sendable, Hashable {
  public let rawValue: Int

  public init(rawValue: Int) { self.rawValue = rawValue }

  public static let purchaseId = PurchaseIdentifierKinds(rawValue: 1 << 0)
  public static let transactionId = PurchaseIdentifierKinds(rawValue: 1 << 1)
  public static let orderId = PurchaseIdentifierKinds(rawValue: 1 << 2)
  public static let storeUserId = PurchaseIdentifierKinds(rawValue: 1 << 3)
  public static let all: PurchaseIdentifierKinds = [.purchaseId, .transactionId, .orderId, .storeUserId]

  public init(_ kind: PurchaseIdentifierKind) {
    switch kind {
    case .purchaseId: self = .purchaseId
    case .transactionId: self = .transactionId
    case .orderId: self = .orderId
    case .storeUserId: self = .storeUserId
    }
  }
}

/// One chain a support lookup found: a light row of `subscriptions` (its history is not decoded),
/// with the transaction the identifier named when it named one.
public struct PurchaseMatch: Sendable, Hashable {
  public var store: Store
  /// The chain (originalTransactionId / purchaseToken / receiptId).
  public var purchaseId: String
  public var matchedAs: PurchaseIdentifierKind
  /// The stored transaction the identifier named (`.transactionId`, `.orderId`); nil otherwise.
  public var transactionId: String?
  /// The user the chain is bound to now; nil when bound to nobody.
  public var userId: String?
  public var productId: String
  public var state: SubscriptionState
  /// `Int64.max` for a lifetime purchase.
  public var accessEndsAtMs: Int64
  public var environment: StoreEnvironment
  /// When an erase unbound the chain (`WorkerStorage.eraseUser`); nil when none did, or a claim
  /// with fresh proof bound it again since.
  public var erasedAtMs: Int64?

  public init(
    store: Store, purchaseId: String, matchedAs: PurchaseIdentifierKind, transactionId: String?, userId: String?,
    productId: String, state: SubscriptionState, accessEndsAtMs: Int64, environment: StoreEnvironment,
    erasedAtMs: Int64?
  ) {
    self.store = store
    self.purchaseId = purchaseId
    self.matchedAs = matchedAs
    self.transactionId = transactionId
    self.userId = userId
    self.productId = productId
    self.state = state
    self.accessEndsAtMs = accessEndsAtMs
    self.environment = environment
    self.erasedAtMs = erasedAtMs
  }

  /// The order `purchases(matching:…)` returns matches in: store, chain, kind (in
  /// `PurchaseIdentifierKind.allCases` order), transaction; ids compared by their UTF-8 bytes (no
  /// collation), so every database orders alike.
  public static func inContractOrder(_ a: PurchaseMatch, _ b: PurchaseMatch) -> Bool {
    let kinds = PurchaseIdentifierKind.allCases
    let ka = kinds.firstIndex(of: a.matchedAs) ?? 0
    let kb = kinds.firstIndex(of: b.matchedAs) ?? 0
    if a.store != b.store { return a.store.rawValue.utf8.lexicographicallyPrecedes(b.store.rawValue.utf8) }
    if a.purchaseId != b.purchaseId { return a.purchaseId.utf8.lexicographicallyPrecedes(b.purchaseId.utf8) }
    if ka != kb { return ka < kb }
    return (a.transactionId ?? "").utf8.lexicographicallyPrecedes((b.transactionId ?? "").utf8)
  }
}

extension PurchaseMatch {
  /// What storage keeps as a transaction's order id (`transactions.order_id`, `.orderId` lookups):
  /// the Google Play base order id of `transactionId`, nil for every other store.
  public static func orderId(store: Store, transactionId: String) -> String? {
    store == .googlePlay ? GooglePlayOrderId.base(ofStoredTransactionId: transactionId) : nil
  }
}
