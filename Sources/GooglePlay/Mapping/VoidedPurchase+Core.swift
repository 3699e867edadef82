import TollgateCore

extension SubscriptionHistory {
  /// This history with Google's voided purchases of its token applied: the voided order's
  /// period counts as never bought from `voidedTimeMillis` (a chargeback as revoked, any other
  /// reason as refunded). A voided purchase without an order id voids every period of the
  /// token; one whose order is not in the history changes nothing (an older renewal order).
  public func applyingGooglePlay(voided: [VoidedPurchase]) -> SubscriptionHistory {
    guard store == .googlePlay else { return self }
    var result = self
    for purchase in voided where purchase.purchaseToken == purchaseId {
      guard let voidedAt = purchase.voidedTimeMillis else { continue }
      let reason: RevocationReason = purchase.typedVoidedReason == .chargeback ? .revoked : .refunded
      for index in result.transactions.indices {
        let transaction = result.transactions[index]
        let order = transaction.transactionId.split(separator: "|", maxSplits: 1).first.map(String.init)
        guard purchase.orderId == nil || purchase.orderId == order else { continue }
        if let earlier = transaction.revocationDateMs, earlier <= voidedAt { continue }
        result.transactions[index].revocationDateMs = voidedAt
        result.transactions[index].revocationReason = reason
      }
    }
    return result
  }
}
