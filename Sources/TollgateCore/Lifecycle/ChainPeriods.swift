/// A period of a chain after refunds, upgrades and replacements are applied.
struct EffectivePeriod: Sendable {
  var transaction: StoreTransaction
  var start: Int64
  var end: Int64
}

/// The periods of a history as they grant access: refunded ones set aside, upgraded and replaced
/// ones cut where their successor starts.
struct ChainPeriods: Sendable {
  /// Periods that grant access, in chain order.
  var live: [EffectivePeriod]
  /// Refunded or revoked periods, in chain order, with the end they would have had.
  var revoked: [EffectivePeriod]

  init(_ history: SubscriptionHistory) {
    var transactions = history.transactions.sorted(by: StoreTransaction.chainOrder)
    var replacedAt = history.replacedAtMs
    let info = history.renewalInfo

    // Amazon RVS: a cancelDate inside the term is a cancellation by customer service (a refund);
    // with cancelReason 4 the receipt was replaced by another tier at that time.
    if history.store == .amazon, let cancel = info?.cancelDateMs {
      if info?.expirationIntent == .replaced {
        replacedAt = min(replacedAt ?? cancel, cancel)
      } else {
        for index in transactions.indices
        where transactions[index].purchaseDateMs <= cancel && cancel < transactions[index].expiresDateMs {
          transactions[index].revocationDateMs = min(transactions[index].revocationDateMs ?? cancel, cancel)
          transactions[index].revocationReason = transactions[index].revocationReason ?? .refunded
        }
      }
    }

    // An upgraded period ends where the next one starts, even if that one was refunded later:
    // the upgrade itself already settled the old period.
    let starts = transactions.map(\.purchaseDateMs)
    func effective(_ transaction: StoreTransaction) -> EffectivePeriod {
      var end = transaction.expiresDateMs
      if transaction.isUpgraded, let next = starts.filter({ $0 > transaction.purchaseDateMs }).min() {
        end = min(end, next)
      }
      if let replacedAt { end = min(end, replacedAt) }
      return EffectivePeriod(transaction: transaction, start: transaction.purchaseDateMs, end: end)
    }
    self.live = transactions.filter { !$0.isRevoked }.map(effective).filter { $0.end > $0.start }
    // A revoked period keeps its cut end even when that is before its start: it only bounds when
    // access ended.
    self.revoked = transactions.filter(\.isRevoked).map(effective)
  }

  /// The end of uninterrupted access that runs through `end`, following periods that start no
  /// later than the access so far ends.
  func contiguousEnd(from end: Int64) -> Int64 {
    var result = end
    for period in live.sorted(by: { $0.start < $1.start }) where period.start <= result {
      result = max(result, period.end)
    }
    return result
  }
}
