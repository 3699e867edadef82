/// The purchases each of a user's purchases replaced, as far as the user's own histories tell:
/// Google Play's `linkedPurchaseToken` followed from one history to the next (the first link is
/// known even when the replaced purchase was never stored).
public struct ReplacementChains: Sendable {
  private let byPurchaseId: [String: SubscriptionHistory]

  public init(_ histories: [SubscriptionHistory]) {
    byPurchaseId = Dictionary(
      histories.filter { $0.store == .googlePlay }.map { ($0.purchaseId, $0) }, uniquingKeysWith: { first, _ in first })
  }

  /// The purchase ids `purchaseId` replaced, newest first; empty when it replaced none.
  public func replaced(by purchaseId: String, store: Store) -> [String] {
    guard store == .googlePlay else { return [] }
    var chain: [String] = []
    var next = byPurchaseId[purchaseId]?.linkedPurchaseToken
    while let token = next, token != purchaseId, !chain.contains(token) {
      chain.append(token)
      next = byPurchaseId[token]?.linkedPurchaseToken
    }
    return chain
  }
}
