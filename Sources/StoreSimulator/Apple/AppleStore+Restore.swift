extension AppleStore {
  /// What the buyer's device holds after `AppStore.sync()` (a restore): the purchase's latest
  /// transaction signed now, and a receipt made now.
  func restored(_ id: String, nowMs: Int64) throws(StoreSimulatorError) -> ApplePurchaseResult {
    guard let subscription = subscriptions[id] ?? subscription(containing: id),
      let latest = latestTransaction(subscription)
    else { throw .notFound("no Apple subscription \(id)") }
    return result(subscription, latest, nowMs: nowMs)
  }
}
