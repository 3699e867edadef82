extension ProductCatalog {
  /// Evaluates one history with this configuration's product durations, grace policy and groups.
  ///
  /// A purchase the store gives no expiry for (`StoreTransaction.expiresDateMs` is `Int64.max`:
  /// a non-renewing subscription, a one-time product) lasts as its product's `duration` says
  /// (`term(forProduct:store:)`): from its purchase for that long, or for good with `lifetime`.
  /// Without one it grants nothing, and the evaluation says so (`durationNotConfigured`) when
  /// nothing else grants.
  public func evaluate(_ history: SubscriptionHistory, at nowMs: Int64) -> SubscriptionEvaluation {
    let (termed, unconfigured) = applyingTerms(to: history)
    var evaluation = SubscriptionLifecycle.evaluate(
      termed, at: nowMs, policy: gracePolicy, groups: subscriptionGroups)
    if evaluation.state == .expired, evaluation.reason == .notStarted || evaluation.reason == .lapsed,
      unconfigured.contains(where: { $0.productId == evaluation.productId && $0.purchaseDateMs <= nowMs })
    {
      evaluation.reason = .durationNotConfigured
    }
    return evaluation
  }

  /// `history` with every transaction the store gave no expiry ended by its product's term, and
  /// the transactions whose product has none (ended at their purchase: they grant nothing).
  public func applyingTerms(to history: SubscriptionHistory) -> (
    history: SubscriptionHistory, unconfigured: [StoreTransaction]
  ) {
    guard history.transactions.contains(where: { $0.expiresDateMs == Int64.max }) else { return (history, []) }
    var result = history
    var unconfigured: [StoreTransaction] = []
    for index in result.transactions.indices where result.transactions[index].expiresDateMs == Int64.max {
      let transaction = result.transactions[index]
      if let term = term(forProduct: transaction.productId, store: history.store) {
        result.transactions[index].expiresDateMs = term.end(fromMs: transaction.purchaseDateMs)
      } else {
        result.transactions[index].expiresDateMs = transaction.purchaseDateMs
        unconfigured.append(transaction)
      }
    }
    return (result, unconfigured)
  }
}
