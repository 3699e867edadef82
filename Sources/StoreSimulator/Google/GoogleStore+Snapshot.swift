extension GoogleStore {
  /// The simulator's view of a subscription or one-time purchase token.
  func snapshot(_ token: String) throws(StoreSimulatorError) -> GooglePurchaseSnapshot {
    if let subscription = subscriptions[token] {
      return GooglePurchaseSnapshot(
        purchaseToken: token, packageName: subscription.packageName, productId: subscription.productId,
        productType: "subscription", state: subscription.state.rawValue, startTimeMs: subscription.startTimeMs,
        expiryTimeMs: subscription.expiryTimeMs, autoRenewEnabled: subscription.autoRenewEnabled,
        acknowledged: subscription.acknowledged, testPurchase: subscription.testPurchase,
        orderIds: subscription.orderIds, linkedPurchaseToken: subscription.linkedPurchaseToken,
        replacedByToken: subscription.replacedByToken,
        obfuscatedExternalAccountId: subscription.obfuscatedExternalAccountId, cancellation: subscription.cancellation,
        failRenewals: subscription.failRenewals, autoResumeTimeMs: subscription.autoResumeTimeMs,
        scheduledPauseMs: subscription.scheduledPauseMs,
        deferredReplacementProductId: subscription.deferredReplacementProductId,
        priceChangeState: subscription.priceChange?.state, voided: isVoided(token))
    }
    let product = try product(token)
    let state = product.purchaseState == 0 ? "PURCHASED" : product.purchaseState == 2 ? "PENDING" : "CANCELLED"
    return GooglePurchaseSnapshot(
      purchaseToken: token, packageName: product.packageName, productId: product.productId,
      productType: "oneTimeProduct", state: state, startTimeMs: product.purchaseTimeMs, expiryTimeMs: nil,
      autoRenewEnabled: nil, acknowledged: product.acknowledged, testPurchase: product.testPurchase,
      orderIds: [product.orderId], linkedPurchaseToken: nil, replacedByToken: nil,
      obfuscatedExternalAccountId: product.obfuscatedExternalAccountId, cancellation: nil, failRenewals: nil,
      autoResumeTimeMs: nil, scheduledPauseMs: nil, deferredReplacementProductId: nil, priceChangeState: nil,
      voided: isVoided(token))
  }
}
