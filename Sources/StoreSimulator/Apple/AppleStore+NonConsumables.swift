/// Non-consumables (bought once, kept for good) and non-renewing subscriptions (bought once; the
/// app decides how long they last). The purchase is one transaction that is its own
/// original (`originalTransactionId` = `transactionId`), of type "Non-Consumable" or "Non-Renewing Subscription", without
/// `expiresDate`, group or web order line item; nothing is scheduled for it. Only a refund ends
/// it (`refund`: `revocationDate`, `revocationReason`, a REFUND notification).
extension AppleStore {
  mutating func purchaseNonConsumable(
    _ request: ApplePurchaseRequest, app: StoreSimulator.AppleApp, product: StoreSimulator.AppleProduct,
    environment: String, core: inout SimCore
  ) throws(StoreSimulatorError) -> ApplePurchaseResult {
    guard request.offer == nil || request.offer == "none" else {
      throw .invalid("\(product.productId) is a non-consumable: it has no offers")
    }
    guard request.originalTransactionId == nil else {
      throw .invalid("\(product.productId) is a non-consumable: there is nothing to resubscribe")
    }
    let now = core.nowMs
    var purchase = AppleSubscription(
      type: product.type, originalTransactionId: "", bundleId: app.bundleId, environment: environment, groupId: "",
      ownership: "PURCHASED", appAccountToken: request.appAccountToken, productId: product.productId,
      autoRenewProductId: product.productId, expiresMs: Int64.max, recentStartMs: now, originalPurchaseMs: now)
    purchase.autoRenewOn = false
    let transaction = addTransaction(
      to: &purchase, productId: product.productId, purchaseMs: now, expiresMs: Int64.max, reason: "PURCHASE",
      price: product.price, core: &core)
    save(purchase)
    // Apple's notification for a one-time purchase (consumable, non-consumable, non-renewing).
    notify("ONE_TIME_CHARGE", nil, purchase, core: &core)
    return result(purchase, transaction, nowMs: now)
  }
}
