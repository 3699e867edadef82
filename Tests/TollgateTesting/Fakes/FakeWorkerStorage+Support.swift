import TollgateCore
import TollgateWorker

/// The support reads and the GDPR erase (`WorkerStorage`, "Support"), as SQLite does them
/// (`SQLiteWorkerStorage+Support`, `+Erase`), in memory. The actor runs the erase without a
/// suspension point, so it is serialised with every other write, as the contract asks.
extension FakeWorkerStorage {
  package func purchases(matching identifier: String, store: Store?, kinds: PurchaseIdentifierKinds, limit: Int)
    -> [PurchaseMatch]
  {
    var matches: [PurchaseMatch] = []
    func match(_ chainKey: String, as kind: PurchaseIdentifierKind, transactionId: String?) {
      guard let chain = subscriptionsByChain[chainKey], store == nil || chain.store == store else { return }
      matches.append(
        PurchaseMatch(
          store: chain.store, purchaseId: chain.purchaseId, matchedAs: kind, transactionId: transactionId,
          userId: chain.userId, productId: chain.productId, state: chain.state, accessEndsAtMs: chain.accessEndsAtMs,
          environment: chain.history.environment, erasedAtMs: chain.erasedAtMs))
    }
    let stores = store.map { [$0] } ?? Store.allCases
    if kinds.contains(.purchaseId) {
      for store in stores { match(Self.key(store, identifier), as: .purchaseId, transactionId: nil) }
    }
    if kinds.contains(.transactionId) {
      for store in stores {
        if let chain = transactionChains[Self.key(store, identifier)] {
          match(chain, as: .transactionId, transactionId: identifier)
        }
      }
    }
    if kinds.contains(.orderId), store == nil || store == .googlePlay,
      let base = GooglePlayOrderId.base(ofStoredTransactionId: identifier)
    {
      let prefix = Self.key(.googlePlay, "")
      for (transaction, chain) in transactionChains where transaction.hasPrefix(prefix) {
        let id = String(transaction.dropFirst(prefix.count))
        if GooglePlayOrderId.base(ofStoredTransactionId: id) == base { match(chain, as: .orderId, transactionId: id) }
      }
    }
    if kinds.contains(.storeUserId) {
      for (key, chain) in subscriptionsByChain where chain.storeUserId == identifier {
        match(key, as: .storeUserId, transactionId: nil)
      }
    }
    return Array(matches.sorted(by: PurchaseMatch.inContractOrder).prefix(max(0, limit)))
  }

  package func events(store: Store, purchaseId: String) -> [WorkerEvent] {
    storedEvents.filter { $0.event.store == store && $0.event.purchaseId == purchaseId }.map(\.event)
  }

  package func eraseUser(_ userId: String, dryRun: Bool, nowMs: Int64) -> ErasureCounts {
    let tokens = Set([userId, userId.lowercased()])
    let bound = subscriptionsByChain.filter { $0.value.userId == userId }.map(\.key)
    let named = subscriptionsByChain.filter {
      $0.value.userId != userId && tokens.contains($0.value.appAccountToken ?? "")
    }
    .map(\.key)
    let grants = grantsById.filter { $0.value.userId == userId }.map(\.key)
    let events = storedEvents.filter { $0.event.userId == userId }.map(\.id)
    let scrubbed = storedEvents.indices.filter {
      storedEvents[$0].event.userId != userId && ErasureText.scrubbed(storedEvents[$0].event, userId: userId) != nil
    }
    let submissions = items.filter { $0.value.item.kind == .purchase && $0.value.item.userId == userId }.map(\.key)
    let counts = ErasureCounts(
      subscriptionsUnbound: bound.count, appAccountTokensCleared: named.count, grants: grants.count,
      events: events.count, eventsScrubbed: scrubbed.count, submissions: submissions.count,
      entitlementRecords: entitlementsByUser[userId]?.count ?? 0)
    if dryRun { return counts }
    for key in bound {
      subscriptionsByChain[key]?.userId = nil
      subscriptionsByChain[key]?.appAccountToken = nil
      subscriptionsByChain[key]?.storeUserId = nil
      subscriptionsByChain[key]?.nextCheckAtMs = nil
      subscriptionsByChain[key]?.erasedAtMs = nowMs
      subscriptionsByChain[key]?.version += 1
      checkBook.tokens[key] = nil
    }
    for key in named { subscriptionsByChain[key]?.appAccountToken = nil }
    for id in grants { grantsById[id] = nil }
    for index in scrubbed {
      storedEvents[index].event =
        ErasureText.scrubbed(storedEvents[index].event, userId: userId) ?? storedEvents[index].event
    }
    let erasedIds = Set(events)
    for endpoint in webhookBook.parked.keys {
      webhookBook.parked[endpoint] = webhookBook.parked[endpoint]?.filter { !erasedIds.contains($0.key) }
    }
    let newestId = storedEvents.last?.id
    if let newest = storedEvents.last, erasedIds.contains(newest.id) {
      // The newest event is scrubbed in place, as SQLite must (its ids would come back).
      storedEvents[storedEvents.count - 1].event = ErasureText.placeholder(of: newest.event)
    }
    storedEvents.removeAll { erasedIds.contains($0.id) && $0.id != newestId }
    for id in submissions { items[id] = nil }
    entitlementsByUser[userId] = nil
    return counts
  }
}
