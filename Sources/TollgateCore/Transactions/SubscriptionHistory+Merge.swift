extension SubscriptionHistory {
  /// This history brought up to date by a `newer` answer about the same chain: what the newer one
  /// says wins, and what it does not say stays. A store's answer that leaves something out (no
  /// renewal info, fewer transactions: a thin or partial answer, or a notification's single
  /// transaction) is not evidence that it is gone; only the store's explicit fields (a revocation,
  /// an expiry, a cancellation, an expiration intent) end access, and those travel inside the
  /// transactions and renewal info the newer answer does carry.
  public func merging(newer: SubscriptionHistory) -> SubscriptionHistory {
    var merged = newer
    let newerIds = Set(newer.transactions.map(\.transactionId))
    merged.transactions = transactions.filter { !newerIds.contains($0.transactionId) } + newer.transactions
    merged.renewalInfo = newer.renewalInfo ?? renewalInfo
    merged.linkedPurchaseToken = newer.linkedPurchaseToken ?? linkedPurchaseToken
    merged.parentProductId = newer.parentProductId ?? parentProductId
    merged.replacedAtMs = newer.replacedAtMs ?? replacedAtMs
    return merged
  }
}
