import TollgateCore

extension WorkerAdmin {
  /// The purchases `userId` once held (their events name them) that are now bound to another
  /// user: each with its new owner, and when and under which policy it moved (the new owner's
  /// `transferred` event), where that event is still kept.
  func transferredAway(userId: String, events: [WorkerEvent], held: [StoredSubscription]) async throws
    -> [Explanation.TransferredAway]
  {
    let heldNow = Set(held.map { "\($0.store.rawValue)|\($0.purchaseId)" })
    var seen = Set<String>()
    var result: [Explanation.TransferredAway] = []
    for event in events where event.store != .promotional && !event.purchaseId.isEmpty {
      let key = "\(event.store.rawValue)|\(event.purchaseId)"
      guard !heldNow.contains(key), seen.insert(key).inserted,
        let subscription = try await storage.subscription(store: event.store, purchaseId: event.purchaseId),
        let owner = subscription.userId, owner != userId
      else { continue }
      let move = try await storage.events(userId: owner).last {
        $0.kind == "transferred" && $0.store == event.store && $0.purchaseId == event.purchaseId
      }
      result.append(
        Explanation.TransferredAway(
          store: event.store.rawValue, purchaseId: event.purchaseId, productId: subscription.productId,
          toUserId: owner, atMs: move?.atMs, detail: move?.detail))
    }
    return result
  }
}
