/// Links purchase chains that replaced one another across purchases (upgrade, downgrade,
/// crossgrade, re-signup), so the old chain's access ends when the new one starts.
///
/// Apple keeps every product of a group in one `originalTransactionId` chain and marks the old
/// transaction `isUpgraded`, so it needs nothing here. Google Play gives the new purchase a
/// `linkedPurchaseToken` naming the old one. Amazon gives each tier a new receipt under the same
/// `parentProductId` and cancels the old receipt (`cancelReason` 4).
public enum SubscriptionReplacements {
  /// Returns `histories` with `replacedAtMs` set on every chain another one replaced.
  public static func resolve(_ histories: [SubscriptionHistory]) -> [SubscriptionHistory] {
    var result = histories
    for index in result.indices {
      let old = result[index]
      guard let oldEnd = old.transactions.map(\.expiresDateMs).max() else { continue }
      var replacedAt = old.replacedAtMs
      for new in histories where new.store == old.store && new.purchaseId != old.purchaseId {
        guard let start = new.firstPurchaseDateMs, let oldStart = old.firstPurchaseDateMs else { continue }
        let linked: Bool
        switch old.store {
        case .googlePlay: linked = new.linkedPurchaseToken == old.purchaseId
        case .amazon:
          linked = old.parentProductId != nil && new.parentProductId == old.parentProductId && start > oldStart
        case .appStore, .promotional: linked = false
        }
        if linked, start < oldEnd { replacedAt = min(replacedAt ?? start, start) }
      }
      result[index].replacedAtMs = replacedAt
    }
    return result
  }
}
