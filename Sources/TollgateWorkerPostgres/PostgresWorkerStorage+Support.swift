import PostgresNIO
import TollgateCore
import TollgatePostgres
import TollgateWorker

/// The support reads (`WorkerStorage`, "Support"), as on SQLite: lookups through the keys'
/// indexes, `transactions_order` and `subscriptions_by_store_user`, ordered by bytes
/// (`COLLATE "C"`, never the database's collation) so that the first `limit` are the contract's;
/// a chain's events through `events_purchase`, read a batch at a time.
extension PostgresWorkerStorage {
  /// Every event of one chain, oldest first (id order: commit order).
  public func events(store: Store, purchaseId: String) async throws -> [WorkerEvent] {
    try await database.transaction { connection in
      var events: [WorkerEvent] = []
      try await connection.forEachRow(
        """
        SELECT \(unescaped: Self.eventColumns) FROM events
        WHERE store = \(store.rawValue) AND store_subscription_id = \(purchaseId) ORDER BY id
        """, logger: logger
      ) { events.append(try Self.storedEvent($0).event) }
      return events
    }
  }

  public func purchases(matching identifier: String, store: Store?, kinds: PurchaseIdentifierKinds, limit: Int)
    async throws -> [PurchaseMatch]
  {
    guard limit > 0 else { return [] }
    let stores = (store.map { [$0] } ?? Store.allCases).map(\.rawValue)
    let orderBase = PurchaseMatch.orderId(store: .googlePlay, transactionId: identifier)
    let count = Int64(limit)
    return try await database.withConnection { connection in
      var matches: [PurchaseMatch] = []
      func read(_ kind: PurchaseIdentifierKind, _ query: PostgresQuery) async throws {
        matches += try await connection.query(query, logger: logger).collect().map { try Self.match($0, kind) }
      }
      if kinds.contains(.purchaseId) {
        try await read(
          .purchaseId,
          """
          SELECT \(unescaped: Self.matchColumns), NULL::text FROM subscriptions s
          WHERE s.store = ANY(\(stores)) AND s.store_subscription_id = \(identifier)
          ORDER BY \(unescaped: Self.byChain) LIMIT \(count)
          """)
      }
      if kinds.contains(.transactionId) {
        try await read(
          .transactionId,
          """
          SELECT \(unescaped: Self.matchColumns), t.store_transaction_id
          FROM transactions t JOIN subscriptions s ON s.id = t.subscription_id
          WHERE t.store = ANY(\(stores)) AND t.store_transaction_id = \(identifier)
          ORDER BY \(unescaped: Self.byChain), t.store_transaction_id COLLATE "C" LIMIT \(count)
          """)
      }
      if kinds.contains(.orderId), stores.contains(Store.googlePlay.rawValue), let orderBase {
        try await read(
          .orderId,
          """
          SELECT \(unescaped: Self.matchColumns), t.store_transaction_id
          FROM transactions t JOIN subscriptions s ON s.id = t.subscription_id
          WHERE t.store = 'google_play' AND t.order_id = \(orderBase)
          ORDER BY \(unescaped: Self.byChain), t.store_transaction_id COLLATE "C" LIMIT \(count)
          """)
      }
      if kinds.contains(.storeUserId) {
        try await read(
          .storeUserId,
          """
          SELECT \(unescaped: Self.matchColumns), NULL::text FROM subscriptions s
          WHERE s.store = ANY(\(stores)) AND s.store_user_id = \(identifier)
          ORDER BY \(unescaped: Self.byChain) LIMIT \(count)
          """)
      }
      return Array(matches.sorted(by: PurchaseMatch.inContractOrder).prefix(limit))
    }
  }

  /// The light columns of a chain a lookup returns (its history is not decoded).
  static let matchColumns = """
    s.store, s.store_subscription_id, s.user_id, s.product_id, s.state, s.access_ends_at_ms, s.environment, \
    s.erased_at_ms
    """
  static let byChain = #"s.store COLLATE "C", s.store_subscription_id COLLATE "C""#

  /// A row of `matchColumns` and the matched transaction id; `StoredRowError` for a store, state
  /// or environment this version does not know, or a column of the wrong type.
  static func match(_ row: PostgresRow, _ kind: PurchaseIdentifierKind) throws -> PurchaseMatch {
    let c: (String, String, String?, String, String, Int64?, String, Int64?, String?)
    do {
      c = try row.decode((String, String, String?, String, String, Int64?, String, Int64?, String?).self)
    } catch {
      throw StoredRowError(table: "subscriptions", key: "?", problem: "lookup columns: \(error)")
    }
    func fail(_ problem: String) -> StoredRowError {
      StoredRowError(table: "subscriptions", key: "\(c.0)/\(c.1)", problem: problem)
    }
    guard let store = Store(rawValue: c.0) else { throw fail("unknown store \(c.0)") }
    guard let state = SubscriptionState(rawValue: c.4) else { throw fail("unknown state \(c.4)") }
    guard let environment = StoreEnvironment(rawValue: c.6) else { throw fail("unknown environment \(c.6)") }
    return PurchaseMatch(
      store: store, purchaseId: c.1, matchedAs: kind, transactionId: c.8, userId: c.2, productId: c.3, state: state,
      accessEndsAtMs: c.5 ?? 0, environment: environment, erasedAtMs: c.7)
  }
}
