import Foundation

/// Buying: a subscription (base plan, free trial or introductory offer) or a one-time product,
/// each with its acknowledgement deadline.
extension GoogleStore {
  mutating func purchase(_ request: GooglePurchaseRequest, core: inout SimCore) throws(StoreSimulatorError)
    -> GooglePurchaseResult
  {
    let app = try app(request.packageName)
    if let product = config.subscription(request.productId) {
      return try purchaseSubscription(request, product: product, app: app, core: &core)
    }
    if let product = config.oneTimeProduct(request.productId) {
      guard request.offer == nil else { throw .invalid("a one-time product has no trial or intro offer") }
      return purchaseOneTime(request, product: product, app: app, core: &core)
    }
    throw .invalid("no Google product \(request.productId) is configured")
  }

  private mutating func purchaseSubscription(
    _ request: GooglePurchaseRequest, product: StoreSimulator.GoogleSubscriptionProduct,
    app: StoreSimulator.GoogleApp, core: inout SimCore
  ) throws(StoreSimulatorError) -> GooglePurchaseResult {
    let offer: StoreSimulator.GoogleOffer?
    let phase: GoogleOfferPhase
    switch request.offer {
    case nil, "base"?:
      (offer, phase) = (nil, .basePrice)
    case "trial"?, "freeTrial"?:
      guard let trial = product.freeTrial else { throw .invalid("\(product.productId) has no free trial offer") }
      (offer, phase) = (trial, .freeTrial)
    case "intro"?, "introductoryPrice"?:
      guard let intro = product.introductoryPrice else { throw .invalid("\(product.productId) has no intro offer") }
      (offer, phase) = (intro, .introductoryPrice)
    case let other?:
      throw .invalid("unknown offer \(other); expected trial or intro")
    }
    if let linked = request.linkedPurchaseToken, subscriptions[linked] == nil {
      throw .notFound("linkedPurchaseToken names no Google subscription")
    }
    let now = core.nowMs
    let orderId = Self.newOrderId(core: &core)
    var subscription = GoogleSubscriptionPurchase(
      purchaseToken: Self.newPurchaseToken(), packageName: app.packageName, productId: product.productId,
      basePlanId: product.basePlanId, offerId: offer?.offerId, offerTags: product.offerTags + (offer?.offerTags ?? []),
      offerPhase: phase, offerPhasesLeft: (offer?.periods ?? 1) - 1, startTimeMs: now,
      expiryTimeMs: now + (offer?.periodMs ?? product.periodMs), recurringPriceMicros: product.priceMicros,
      orderIdBase: orderId, orderIds: [orderId])
    subscription.acknowledged = request.acknowledged ?? false
    subscription.linkedPurchaseToken = request.linkedPurchaseToken
    subscription.obfuscatedExternalAccountId = request.obfuscatedExternalAccountId
    subscription.obfuscatedExternalProfileId = request.obfuscatedExternalProfileId
    subscription.testPurchase = request.testPurchase ?? false
    scheduleExpiry(&subscription, core: &core)
    scheduleAcknowledgementDeadline(subscription.purchaseToken, core: &core)
    save(subscription)
    notify(.purchased, subscription, core: &core)
    let (json, signature) = purchaseData(
      orderId: orderId, packageName: app.packageName, productId: product.productId, purchaseTimeMs: now,
      token: subscription.purchaseToken, autoRenewing: true, request: request)
    return GooglePurchaseResult(
      purchaseToken: subscription.purchaseToken, packageName: app.packageName, productId: product.productId,
      orderId: orderId, productType: "subscription", purchaseTimeMs: now, expiryTimeMs: subscription.expiryTimeMs,
      originalJson: json, signature: signature)
  }

  private mutating func purchaseOneTime(
    _ request: GooglePurchaseRequest, product: StoreSimulator.GoogleOneTimeProduct, app: StoreSimulator.GoogleApp,
    core: inout SimCore
  ) -> GooglePurchaseResult {
    var purchase = GoogleProductPurchase(
      purchaseToken: Self.newPurchaseToken(), packageName: app.packageName, productId: product.productId,
      orderId: Self.newOrderId(core: &core), purchaseTimeMs: core.nowMs, priceMicros: product.priceMicros)
    purchase.acknowledged = request.acknowledged ?? false
    purchase.testPurchase = request.testPurchase ?? false
    purchase.obfuscatedExternalAccountId = request.obfuscatedExternalAccountId
    purchase.obfuscatedExternalProfileId = request.obfuscatedExternalProfileId
    save(purchase)
    scheduleAcknowledgementDeadline(purchase.purchaseToken, core: &core)
    notifyOneTime(1, purchase, core: &core)
    let (json, signature) = purchaseData(
      orderId: purchase.orderId, packageName: app.packageName, productId: product.productId,
      purchaseTimeMs: purchase.purchaseTimeMs, token: purchase.purchaseToken, autoRenewing: nil, request: request)
    return GooglePurchaseResult(
      purchaseToken: purchase.purchaseToken, packageName: app.packageName, productId: product.productId,
      orderId: purchase.orderId, productType: "oneTimeProduct", purchaseTimeMs: purchase.purchaseTimeMs,
      expiryTimeMs: nil, originalJson: json, signature: signature)
  }

  /// `INAPP_PURCHASE_DATA` (the JSON the Play Billing library gives the app) and its signature.
  private func purchaseData(
    orderId: String, packageName: String, productId: String, purchaseTimeMs: Int64, token: String,
    autoRenewing: Bool?, request: GooglePurchaseRequest
  ) -> (String, String) {
    var data: [String: Any] = [
      "orderId": orderId, "packageName": packageName, "productId": productId, "purchaseTime": purchaseTimeMs,
      "purchaseState": 0, "purchaseToken": token, "quantity": 1, "acknowledged": request.acknowledged ?? false,
    ]
    if let autoRenewing { data["autoRenewing"] = autoRenewing }
    if let account = request.obfuscatedExternalAccountId { data["obfuscatedAccountId"] = account }
    if let profile = request.obfuscatedExternalProfileId { data["obfuscatedProfileId"] = profile }
    let bytes = (try? JSONSerialization.data(withJSONObject: data, options: [.withoutEscapingSlashes])) ?? Data()
    return (String(decoding: bytes, as: UTF8.self), credentials.signPurchaseData(Array(bytes)))
  }

  /// Google refunds and revokes a purchase not acknowledged within the window (3 days).
  func scheduleAcknowledgementDeadline(_ token: String, core: inout SimCore) {
    core.schedule(
      at: core.nowMs + config.acknowledgementWindowMs, store: Self.name, kind: "acknowledgementDeadline",
      subject: token, epoch: 0)
  }

  /// `purchases.subscriptions.acknowledge` / `purchases.products.acknowledge`, or the app
  /// acknowledging through the Play Billing Library.
  mutating func acknowledge(_ token: String) throws(StoreSimulatorError) {
    if var subscription = subscriptions[token] {
      subscription.acknowledged = true
      save(subscription)
    } else if var product = products[token] {
      product.acknowledged = true
      save(product)
    } else {
      throw .notFound("no Google purchase with that token")
    }
  }
}
