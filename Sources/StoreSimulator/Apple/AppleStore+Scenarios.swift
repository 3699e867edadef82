import Foundation

/// `POST /sim/apple/purchases`: a customer buys (or buys again) an auto-renewable subscription,
/// or buys a non-consumable (the product's type decides).
public struct ApplePurchaseRequest: Sendable, Codable {
  /// Defaults to the first configured app.
  public var bundleId: String?
  public var productId: String
  /// `"trial"` (free trial) or `"intro"` (pay-as-you-go introductory price); `nil` for none.
  /// Subscriptions only.
  public var offer: String?
  /// `"Sandbox"` (default) or `"Production"`.
  public var environment: String?
  public var appAccountToken: String?
  /// Resubscribe an expired subscription instead of starting a new one. Subscriptions only.
  public var originalTransactionId: String?

  public init(
    productId: String, bundleId: String? = nil, offer: String? = nil, environment: String? = nil,
    appAccountToken: String? = nil, originalTransactionId: String? = nil
  ) {
    self.productId = productId
    self.bundleId = bundleId
    self.offer = offer
    self.environment = environment
    self.appAccountToken = appAccountToken
    self.originalTransactionId = originalTransactionId
  }
}

/// What the app would get back from StoreKit after a purchase.
public struct ApplePurchaseResult: Sendable, Codable, Hashable {
  public var transactionId: String
  public var originalTransactionId: String
  public var orderId: String
  public var environment: String
  /// The transaction JWS, as `Transaction.jwsRepresentation` gives it.
  public var signedTransaction: String
  /// An opaque base64 token for `verifyReceipt` (not a PKCS#7 receipt; see docs/storesim.md),
  /// made now: verifyReceipt gives this moment as its `receipt_creation_date`.
  public var receiptData: String
  /// The unified app receipt (base64 PKCS#7) made now, signed by the simulator's receipt-signing
  /// leaf: what `Bundle.main.appStoreReceiptURL` holds on the buyer's device.
  public var appReceipt: String?
}

/// A subscription (or a non-consumable) as `GET /sim/apple/subscriptions/{id}` shows it.
public struct AppleSubscriptionSnapshot: Sendable, Codable, Hashable {
  /// Apple's product type: "Auto-Renewable Subscription", "Non-Consumable" or
  /// "Non-Renewing Subscription".
  public var type: String
  public var originalTransactionId: String
  public var bundleId: String
  public var environment: String
  public var productId: String
  public var autoRenewProductId: String
  public var autoRenewStatus: Int
  public var state: AppleSubscriptionState
  public var status: Int
  /// `Int64.max` for a non-consumable, which never expires.
  public var expiresDate: Int64
  public var gracePeriodExpiresDate: Int64?
  public var failingRenewals: Bool
  public var inAppOwnershipType: String
  public var transactionIds: [String]
  public var familyMembers: [String]
}

extension AppleStore {
  /// - Parameter createdMs: when the receipt was made (verifyReceipt's `receipt_creation_date`).
  static func receiptData(bundleId: String, originalTransactionId: String, environment: String, createdMs: Int64)
    -> String
  {
    let token: [String: String] = [
      "sim": "apple", "bundleId": bundleId, "originalTransactionId": originalTransactionId, "environment": environment,
      "createdMs": String(createdMs),
    ]
    let json = (try? JSONSerialization.data(withJSONObject: token, options: [.sortedKeys])) ?? Data()
    return json.base64EncodedString()
  }

  func snapshot(_ originalTransactionId: String) throws(StoreSimulatorError) -> AppleSubscriptionSnapshot {
    let subscription = try existing(originalTransactionId)
    return AppleSubscriptionSnapshot(
      type: subscription.type.rawValue, originalTransactionId: subscription.originalTransactionId,
      bundleId: subscription.bundleId,
      environment: subscription.environment, productId: subscription.productId,
      autoRenewProductId: subscription.autoRenewProductId, autoRenewStatus: subscription.autoRenewOn ? 1 : 0,
      state: subscription.state, status: subscription.state.status, expiresDate: subscription.expiresMs,
      gracePeriodExpiresDate: subscription.gracePeriodExpiresMs, failingRenewals: subscription.failRenewals,
      inAppOwnershipType: subscription.ownership, transactionIds: subscription.transactionIds,
      familyMembers: subscription.familyMembers)
  }

  private func existing(_ originalTransactionId: String) throws(StoreSimulatorError) -> AppleSubscription {
    guard let subscription = subscriptions[originalTransactionId] ?? subscription(containing: originalTransactionId)
    else { throw .notFound("no Apple subscription \(originalTransactionId)") }
    return subscription
  }

  private func ownedByCustomer(_ id: String) throws(StoreSimulatorError) -> AppleSubscription {
    let subscription = try existing(id)
    if subscription.organizer != nil {
      throw .conflict("\(id) is family shared; it follows the organiser's subscription \(subscription.organizer ?? "")")
    }
    return subscription
  }

  /// An auto-renewable subscription the customer owns: a non-consumable can only be refunded.
  private func autoRenewable(_ id: String) throws(StoreSimulatorError) -> AppleSubscription {
    let subscription = try ownedByCustomer(id)
    guard subscription.type == .autoRenewable else {
      throw .conflict("\(id) is a non-consumable; only a refund applies to it")
    }
    return subscription
  }

  func result(_ subscription: AppleSubscription, _ transaction: AppleTransaction, nowMs: Int64)
    -> ApplePurchaseResult
  {
    ApplePurchaseResult(
      transactionId: transaction.transactionId, originalTransactionId: subscription.originalTransactionId,
      orderId: transaction.orderId, environment: subscription.environment,
      signedTransaction: signedTransaction(transaction, nowMs: nowMs),
      receiptData: Self.receiptData(
        bundleId: subscription.bundleId, originalTransactionId: subscription.originalTransactionId,
        environment: subscription.environment, createdMs: nowMs),
      appReceipt: appReceipt(subscription, nowMs: nowMs))
  }

  /// The app receipt of `subscription`'s app made at `nowMs`, listing its transactions.
  func appReceipt(_ subscription: AppleSubscription, nowMs: Int64) -> String? {
    let receipt = SimulatedAppReceipt(
      receiptType: subscription.environment == "Sandbox" ? "ProductionSandbox" : "Production",
      bundleId: subscription.bundleId, applicationVersion: config.app(subscription.bundleId)?.bundleVersion ?? "1",
      creationDateMs: nowMs,
      purchases: chain(subscription).map {
        SimulatedAppReceipt.Purchase(
          productId: $0.productId, transactionId: $0.transactionId, originalTransactionId: $0.originalTransactionId,
          purchaseDateMs: $0.purchaseDate, expiresDateMs: $0.expiresDate)
      })
    return try? receipt.signed(by: signer.leaf, key: signer.leafKey, chain: [signer.intermediate, signer.root])
  }

  // MARK: Scenarios

  mutating func purchase(_ request: ApplePurchaseRequest, core: inout SimCore) throws(StoreSimulatorError)
    -> ApplePurchaseResult
  {
    guard let app = request.bundleId.map({ config.app($0) }) ?? config.apps.first else {
      throw .invalid("unknown bundleId \(request.bundleId ?? "nil")")
    }
    guard let product = config.product(request.productId) else {
      throw .invalid("unknown productId \(request.productId)")
    }
    let environment = request.environment ?? "Sandbox"
    guard environment == "Sandbox" || environment == "Production" else {
      throw .invalid("environment must be Sandbox or Production")
    }
    guard product.type == .autoRenewable else {
      return try purchaseNonConsumable(request, app: app, product: product, environment: environment, core: &core)
    }
    let now = core.nowMs
    var subscription: AppleSubscription
    var subtype = "INITIAL_BUY"
    if let previous = request.originalTransactionId {
      subscription = try autoRenewable(previous)
      guard subscription.state == .expired || subscription.state == .revoked else {
        throw .conflict("subscription \(previous) is still \(subscription.state.rawValue)")
      }
      guard subscription.groupId == product.groupId else { throw .invalid("\(product.productId) is in another group") }
      subtype = "RESUBSCRIBE"
      subscription.state = .active
      subscription.autoRenewOn = true
      subscription.expirationIntent = nil
      subscription.failRenewals = false
      subscription.recentStartMs = now
      subscription.appAccountToken = request.appAccountToken ?? subscription.appAccountToken
    } else {
      subscription = AppleSubscription(
        originalTransactionId: "", bundleId: app.bundleId, environment: environment, groupId: product.groupId,
        ownership: "PURCHASED", appAccountToken: request.appAccountToken, productId: product.productId,
        autoRenewProductId: product.productId, expiresMs: now, recentStartMs: now, originalPurchaseMs: now)
    }
    subscription.autoRenewProductId = product.productId
    var periodMs = product.periodMs
    var price = product.price
    var offer: (type: Int, discount: String)?
    switch request.offer {
    case nil, "none"?:
      break
    case "trial"?:
      guard let trial = product.trialPeriodMs else { throw .invalid("\(product.productId) has no free trial") }
      (periodMs, price, offer) = (trial, 0, (1, "FREE_TRIAL"))
    case "intro"?:
      guard let introPrice = product.introPrice else {
        throw .invalid("\(product.productId) has no introductory price")
      }
      (price, offer) = (introPrice, (1, "PAY_AS_YOU_GO"))
      subscription.introPeriodsLeft = max(product.introPeriods - 1, 0)
    case let other?:
      throw .invalid("offer must be trial, intro or null, not \(other)")
    }
    let transaction = addTransaction(
      to: &subscription, productId: product.productId, purchaseMs: now, expiresMs: now + periodMs, reason: "PURCHASE",
      price: price, offer: offer, core: &core)
    scheduleRenewal(&subscription, core: &core)
    save(subscription)
    notify("SUBSCRIBED", subtype, subscription, core: &core)
    return result(subscription, transaction, nowMs: now)
  }

  /// From now on every renewal (and billing retry) fails, until `recoverBilling`.
  mutating func failRenewals(_ id: String) throws(StoreSimulatorError) -> AppleSubscriptionSnapshot {
    var subscription = try autoRenewable(id)
    subscription.failRenewals = true
    save(subscription)
    return try snapshot(subscription.originalTransactionId)
  }

  /// The next billing retry succeeds; with `immediately`, it happens now.
  mutating func recoverBilling(_ id: String, immediately: Bool, core: inout SimCore) throws(StoreSimulatorError)
    -> AppleSubscriptionSnapshot
  {
    var subscription = try autoRenewable(id)
    subscription.failRenewals = false
    if immediately, subscription.inBillingTrouble { _ = retry(&subscription, core: &core) }
    save(subscription)
    return try snapshot(subscription.originalTransactionId)
  }

  mutating func setAutoRenew(_ id: String, enabled: Bool, core: inout SimCore) throws(StoreSimulatorError)
    -> AppleSubscriptionSnapshot
  {
    var subscription = try autoRenewable(id)
    guard subscription.state != .expired, subscription.state != .revoked else {
      throw .conflict("subscription is \(subscription.state.rawValue); purchase again to resubscribe")
    }
    if subscription.autoRenewOn != enabled {
      subscription.autoRenewOn = enabled
      save(subscription)
      notify(
        "DID_CHANGE_RENEWAL_STATUS", enabled ? "AUTO_RENEW_ENABLED" : "AUTO_RENEW_DISABLED", subscription, core: &core)
    }
    return try snapshot(subscription.originalTransactionId)
  }

  /// Refunds one transaction (the latest by default). Refunding the latest one ends the
  /// subscription (or the non-consumable: its only transaction) and revokes family members'
  /// access (`REVOKE`).
  mutating func refund(_ id: String, transactionId: String?, reason: Int, core: inout SimCore)
    throws(StoreSimulatorError) -> AppleSubscriptionSnapshot
  {
    var subscription = try ownedByCustomer(id)
    let target = transactionId ?? subscription.transactionIds.last ?? ""
    guard subscription.transactionIds.contains(target) else { throw .notFound("no transaction \(target) in \(id)") }
    guard transactions[target]?.revocationDate == nil else {
      throw .conflict("transaction \(target) is already refunded")
    }
    let now = core.nowMs
    updateTransaction(target) {
      $0.revocationDate = now
      $0.revocationReason = reason
      $0.revocationType = "REFUND_FULL"
    }
    if target == subscription.transactionIds.last {
      subscription.state = .revoked
      subscription.epoch += 1
      for memberId in subscription.familyMembers {
        guard var member = subscriptions[memberId], member.state != .revoked else { continue }
        member.state = .revoked
        member.epoch += 1
        if let last = member.transactionIds.last {
          updateTransaction(last) {
            $0.revocationDate = now
            $0.revocationReason = reason
            $0.revocationType = "FAMILY_REVOKE"
          }
        }
        save(member)
        notify("REVOKE", nil, member, core: &core)
      }
    }
    save(subscription)
    notify("REFUND", nil, subscription, transaction: transactions[target], core: &core)
    return try snapshot(subscription.originalTransactionId)
  }

  /// Upgrade (a lower level number: immediate), downgrade or crossgrade (at the next renewal).
  mutating func changeProduct(_ id: String, to productId: String, core: inout SimCore) throws(StoreSimulatorError)
    -> AppleSubscriptionSnapshot
  {
    var subscription = try autoRenewable(id)
    guard subscription.state == .active else { throw .conflict("subscription is \(subscription.state.rawValue)") }
    guard let target = config.product(productId), target.groupId == subscription.groupId else {
      throw .invalid("\(productId) is not a product of group \(subscription.groupId)")
    }
    let currentLevel = config.product(subscription.productId)?.level ?? target.level
    if productId == subscription.productId {
      guard subscription.autoRenewProductId != productId else { throw .conflict("already subscribed to \(productId)") }
      subscription.autoRenewProductId = productId
      save(subscription)
      notify("DID_CHANGE_RENEWAL_PREF", nil, subscription, core: &core)
    } else if target.level < currentLevel {
      if let last = subscription.transactionIds.last { updateTransaction(last) { $0.isUpgraded = true } }
      let now = core.nowMs
      subscription.autoRenewProductId = productId
      addTransaction(
        to: &subscription, productId: productId, purchaseMs: now, expiresMs: now + target.periodMs, reason: "PURCHASE",
        price: target.price, core: &core)
      scheduleRenewal(&subscription, core: &core)
      save(subscription)
      notify("DID_CHANGE_RENEWAL_PREF", "UPGRADE", subscription, core: &core)
    } else {
      subscription.autoRenewProductId = productId
      save(subscription)
      notify("DID_CHANGE_RENEWAL_PREF", target.level > currentLevel ? "DOWNGRADE" : nil, subscription, core: &core)
    }
    return try snapshot(subscription.originalTransactionId)
  }

  /// Shares the subscription with a family member: a FAMILY_SHARED subscription of its own
  /// that follows the organiser's renewals, expiry and refunds.
  mutating func familyShare(_ id: String, appAccountToken: String?, core: inout SimCore) throws(StoreSimulatorError)
    -> ApplePurchaseResult
  {
    var organizer = try autoRenewable(id)
    guard organizer.state == .active || organizer.inBillingTrouble else {
      throw .conflict("subscription is \(organizer.state.rawValue)")
    }
    let now = core.nowMs
    var member = AppleSubscription(
      originalTransactionId: "", bundleId: organizer.bundleId, environment: organizer.environment,
      groupId: organizer.groupId, ownership: "FAMILY_SHARED", appAccountToken: appAccountToken,
      productId: organizer.productId, autoRenewProductId: organizer.autoRenewProductId, expiresMs: organizer.expiresMs,
      recentStartMs: now, originalPurchaseMs: now)
    member.autoRenewOn = organizer.autoRenewOn
    member.organizer = organizer.originalTransactionId
    let transaction = addTransaction(
      to: &member, productId: organizer.productId, purchaseMs: now, expiresMs: organizer.expiresMs,
      reason: "PURCHASE", price: config.product(organizer.productId)?.price ?? 0, core: &core)
    organizer.familyMembers.append(member.originalTransactionId)
    save(member)
    save(organizer)
    notify("SUBSCRIBED", "INITIAL_BUY", member, core: &core)
    return result(member, transaction, nowMs: now)
  }
}
