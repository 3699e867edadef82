import TollgateCore
import TollgateSQLite
import TollgateStorage
import TollgateWorker

/// The support reads (`WorkerStorage`, "Support"): lookups by any stored identifier, through the
/// indexes of the subscriptions and transactions keys, `transactions_order` (v21-support) and
/// `subscriptions_by_store_user`, each constrained by store so that the index is used when no
/// store is given; and a chain's events through `events_purchase`.
extension SQLiteWorkerStorage {
  /// Every event of one chain, oldest first (id order: commit order).
  public func events(store: Store, purchaseId: String) async throws -> [WorkerEvent] {
    try await writer.read { db in
      try db.prepare(
        "SELECT \(Self.eventColumns) FROM events WHERE store = ? AND store_subscription_id = ? ORDER BY id"
      ).rows([.text(store.rawValue), .text(purchaseId)]) { Self.event($0) }
    }
  }

  public func purchases(matching identifier: String, store: Store?, kinds: PurchaseIdentifierKinds, limit: Int)
    async throws -> [PurchaseMatch]
  {
    guard limit > 0 else { return [] }
    let stores = store.map { [$0] } ?? Store.allCases
    let orderBase = PurchaseMatch.orderId(store: .googlePlay, transactionId: identifier)
    return try await writer.read { db in
      let inStores = "(\(stores.map { _ in "?" }.joined(separator: ", ")))"
      let storeArguments = stores.map { DatabaseValue.text($0.rawValue) }
      var matches: [PurchaseMatch] = []
      func read(_ kind: PurchaseIdentifierKind, _ sql: String, _ arguments: [DatabaseValue]) throws {
        matches += try db.prepare(sql).rows(arguments + [.integer(Int64(limit))]) { try Self.match($0, kind) }
      }
      let fromChains = "SELECT \(Self.matchColumns), NULL FROM subscriptions s"
      let fromTransactions =
        "SELECT \(Self.matchColumns), t.store_transaction_id FROM transactions t JOIN subscriptions s ON s.id = t.subscription_id"
      let byChain = "ORDER BY s.store, s.store_subscription_id LIMIT ?"
      let byTransaction = "ORDER BY s.store, s.store_subscription_id, t.store_transaction_id LIMIT ?"
      if kinds.contains(.purchaseId) {
        try read(
          .purchaseId, "\(fromChains) WHERE s.store IN \(inStores) AND s.store_subscription_id = ? \(byChain)",
          storeArguments + [.text(identifier)])
      }
      if kinds.contains(.transactionId) {
        try read(
          .transactionId,
          "\(fromTransactions) WHERE t.store IN \(inStores) AND t.store_transaction_id = ? \(byTransaction)",
          storeArguments + [.text(identifier)])
      }
      if kinds.contains(.orderId), stores.contains(.googlePlay), let orderBase {
        try read(
          .orderId, "\(fromTransactions) WHERE t.store = 'google_play' AND t.order_id = ? \(byTransaction)",
          [.text(orderBase)])
      }
      if kinds.contains(.storeUserId) {
        try read(
          .storeUserId, "\(fromChains) WHERE s.store IN \(inStores) AND s.store_user_id = ? \(byChain)",
          storeArguments + [.text(identifier)])
      }
      return Array(matches.sorted(by: PurchaseMatch.inContractOrder).prefix(limit))
    }
  }

  /// The light columns of a chain a lookup returns (its history is not decoded).
  static let matchColumns = """
    s.store, s.store_subscription_id, s.user_id, s.product_id, s.state, s.access_ends_at_ms, s.environment, \
    s.erased_at_ms
    """

  /// A row of `matchColumns` and the matched transaction id; `StoredRowError` for a store, state
  /// or environment this version does not know.
  static func match(_ row: Statement, _ kind: PurchaseIdentifierKind) throws -> PurchaseMatch {
    let key = "\(row.string(at: 0))/\(row.string(at: 1))"
    func fail(_ problem: String) -> StoredRowError {
      StoredRowError(table: "subscriptions", key: key, problem: problem)
    }
    guard let store = Store(rawValue: row.string(at: 0)) else { throw fail("unknown store \(row.string(at: 0))") }
    guard let state = SubscriptionState(rawValue: row.string(at: 4)) else {
      throw fail("unknown state \(row.string(at: 4))")
    }
    guard let environment = StoreEnvironment(rawValue: row.string(at: 6)) else {
      throw fail("unknown environment \(row.string(at: 6))")
    }
    return PurchaseMatch(
      store: store, purchaseId: row.string(at: 1), matchedAs: kind, transactionId: row.optionalString(at: 8),
      userId: row.optionalString(at: 2), productId: row.string(at: 3), state: state,
      accessEndsAtMs: row.optionalInt64(at: 5) ?? 0, environment: environment, erasedAtMs: row.optionalInt64(at: 7))
  }
}
