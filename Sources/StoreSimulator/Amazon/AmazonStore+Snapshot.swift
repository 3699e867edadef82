extension AmazonStore {
  /// The simulator's view of a receipt (and of its subscription).
  func snapshot(_ receiptId: String) throws(StoreSimulatorError) -> AmazonReceiptSnapshot {
    let r = try receipt(receiptId)
    let subscription = r.subscriptionId.flatMap { subscriptions[$0] }
    let endpoint = endpoints[r.appPackageName]
    return AmazonReceiptSnapshot(
      receiptId: r.receiptId, userId: r.userId, appPackageName: r.appPackageName, productType: r.productType,
      productId: r.productId, parentProductId: r.parentProductId, purchaseDateMs: r.purchaseDateMs,
      renewalDateMs: r.renewalDateMs, cancelDateMs: r.cancelDateMs, cancelReason: r.cancelReason,
      autoRenewing: r.autoRenewing, freeTrialEndDateMs: r.freeTrialEndDateMs,
      gracePeriodEndDateMs: r.gracePeriodEndDateMs, deferredSku: r.deferredSku, testTransaction: r.testTransaction,
      subscriptionId: subscription?.subscriptionId, subscriptionState: subscription?.state,
      receiptIds: subscription?.receiptIds, currentReceiptId: subscription?.currentReceiptId,
      failRenewals: subscription?.failRenewals, notificationEndpoint: endpoint?.status ?? "none",
      heldNotifications: heldCount(r.appPackageName))
  }
}
