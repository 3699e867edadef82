extension SubscriptionHistory {
  /// Folds a batch of events for this chain into the history.
  ///
  /// The result does not depend on the order of `events`: each transaction is taken from the
  /// latest snapshot that carried it (by `occurredAtMs`, this history counting as of `asOfMs`),
  /// and so is the renewal info. Events of other chains are ignored.
  public func applying(_ events: [StoreEvent]) -> SubscriptionHistory {
    var result = self
    let mine = events.filter { $0.store == store && $0.purchaseId == purchaseId }
    var latestByTransaction: [String: Snapshot<StoreTransaction>] = [:]
    for transaction in transactions {
      latestByTransaction.merge(transaction.transactionId, Snapshot(at: asOfMs, value: transaction))
    }
    var renewal = renewalInfo.map { Snapshot(at: asOfMs, value: $0) }
    for event in mine {
      for transaction in event.transactions {
        latestByTransaction.merge(
          transaction.transactionId, Snapshot(at: event.occurredAtMs, value: transaction))
      }
      if let info = event.renewalInfo {
        let candidate = Snapshot(at: event.occurredAtMs, value: info)
        if renewal.map({ candidate.isNewer(than: $0) }) ?? true { renewal = candidate }
      }
    }
    // Linked token and parent product never change within a chain; take the smallest of any
    // conflicting values so the result stays order-independent.
    let linked = ([linkedPurchaseToken] + mine.map(\.linkedPurchaseToken)).compactMap { $0 }
    result.linkedPurchaseToken = linked.min()
    let parents = ([parentProductId] + mine.map(\.parentProductId)).compactMap { $0 }
    result.parentProductId = parents.min()
    if mine.contains(where: { $0.environment == .sandbox }) { result.environment = .sandbox }
    result.transactions = latestByTransaction.values.map(\.value).sorted(by: StoreTransaction.chainOrder)
    result.renewalInfo = renewal?.value
    result.asOfMs = ([asOfMs] + mine.map(\.occurredAtMs)).max() ?? asOfMs
    return result
  }

  /// Builds a history from events alone.
  public init?(events: [StoreEvent]) {
    guard let first = events.min(by: { ($0.store.rawValue, $0.purchaseId) < ($1.store.rawValue, $1.purchaseId) })
    else { return nil }
    let empty = SubscriptionHistory(
      store: first.store, purchaseId: first.purchaseId, transactions: [], asOfMs: Int64.min)
    self = empty.applying(events)
  }
}

extension StoreTransaction {
  /// A total order for a chain: by start, then end, then id.
  static func chainOrder(_ lhs: StoreTransaction, _ rhs: StoreTransaction) -> Bool {
    if lhs.purchaseDateMs != rhs.purchaseDateMs { return lhs.purchaseDateMs < rhs.purchaseDateMs }
    if lhs.expiresDateMs != rhs.expiresDateMs { return lhs.expiresDateMs < rhs.expiresDateMs }
    return lhs.transactionId < rhs.transactionId
  }
}

/// A value as reported at some time; newer reports win, ties break on content so the winner
/// does not depend on arrival order.
private struct Snapshot<Value: Hashable> {
  var at: Int64
  var value: Value

  func isNewer(than other: Snapshot) -> Bool {
    if at != other.at { return at > other.at }
    return String(describing: value) > String(describing: other.value)
  }
}

extension Dictionary where Key == String {
  fileprivate mutating func merge<V>(_ key: String, _ snapshot: Snapshot<V>) where Value == Snapshot<V> {
    if let existing = self[key], !snapshot.isNewer(than: existing) { return }
    self[key] = snapshot
  }
}
