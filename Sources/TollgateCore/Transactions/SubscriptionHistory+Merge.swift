extension SubscriptionHistory {
  /// This history brought up to date by a `newer` answer about the same chain: what the newer one
  /// says wins, and what it does not say stays. A store's answer that leaves something out (no
  /// renewal info, fewer transactions: a thin or partial answer, or a notification's single
  /// transaction) is not evidence that it is gone; only the store's explicit fields (a revocation,
  /// an expiry, a cancellation, an expiration intent) end access, and those travel inside the
  /// transactions and renewal info the newer answer does carry.
  ///
  /// Google Play's purchase resources never carry a refund: a revocation there comes only from
  /// voided purchases, so a later answer without one does not undo it.
  public func merging(newer: SubscriptionHistory) -> SubscriptionHistory {
    var merged = newer
    let newerIds = Set(newer.transactions.map(\.transactionId))
    var newerTransactions = newer.transactions
    if store == .googlePlay {
      let revoked = Dictionary(
        transactions.filter { $0.revocationDateMs != nil }.map { ($0.transactionId, $0) },
        uniquingKeysWith: { a, _ in a })
      for index in newerTransactions.indices where newerTransactions[index].revocationDateMs == nil {
        guard let earlier = revoked[newerTransactions[index].transactionId] else { continue }
        newerTransactions[index].revocationDateMs = earlier.revocationDateMs
        newerTransactions[index].revocationReason = earlier.revocationReason
      }
    }
    merged.transactions = transactions.filter { !newerIds.contains($0.transactionId) } + newerTransactions
    merged.renewalInfo = newer.renewalInfo ?? renewalInfo
    merged.linkedPurchaseToken = newer.linkedPurchaseToken ?? linkedPurchaseToken
    merged.parentProductId = newer.parentProductId ?? parentProductId
    merged.replacedAtMs = newer.replacedAtMs ?? replacedAtMs
    return merged
  }
}
