import Foundation

/// Where an Apple subscription is in its life; `status` is Apple's number in Get All
/// Subscription Statuses and in notifications.
public enum AppleSubscriptionState: String, Sendable, Hashable, Codable {
  case active, gracePeriod, billingRetry, expired, revoked

  public var status: Int {
    switch self {
    case .active: 1
    case .expired: 2
    case .billingRetry: 3
    case .gracePeriod: 4
    case .revoked: 5
    }
  }
}

/// The kinds of in-app purchase the simulated App Store sells, by Apple's `type` names.
public enum AppleProductType: String, Sendable, Hashable, Codable {
  case autoRenewable = "Auto-Renewable Subscription"
  case nonConsumable = "Non-Consumable"
  /// Sold like a non-consumable (one transaction, no `expiresDate`): Apple leaves the duration to
  /// the app, so the buyer's access lasts as long as the operator's catalog says.
  case nonRenewing = "Non-Renewing Subscription"

  /// Bought once, with no expiry: non-consumables and non-renewing subscriptions.
  var isOneTime: Bool { self != .autoRenewable }
}

/// One purchase chain (an original transaction id and its transactions): an auto-renewable
/// subscription and its renewals, or a non-consumable's one transaction (`type`), which never
/// expires (`expiresMs` is `Int64.max`), never renews and ends only when refunded (`revoked`).
struct AppleSubscription: Sendable {
  var type = AppleProductType.autoRenewable
  var originalTransactionId: String
  var bundleId: String
  var environment: String
  var groupId: String
  var ownership: String
  var appAccountToken: String?
  var productId: String
  var autoRenewProductId: String
  var autoRenewOn = true
  var state = AppleSubscriptionState.active
  var expiresMs: Int64
  var recentStartMs: Int64
  var originalPurchaseMs: Int64
  var transactionIds: [String] = []
  var failRenewals = false
  var billingIssueSinceMs: Int64?
  var gracePeriodExpiresMs: Int64?
  var expirationIntent: Int?
  var introPeriodsLeft = 0
  var epoch = 0
  /// Family members' original transaction ids (organiser side).
  var familyMembers: [String] = []
  /// The organiser's original transaction id (member side).
  var organizer: String?

  var inBillingTrouble: Bool { state == .gracePeriod || state == .billingRetry }
}

/// The simulated App Store: subscriptions, transactions and orders, and the rules that move
/// them along the virtual clock. Every change happens under the simulator's lock, against the
/// store-neutral `SimCore` (clock, scheduler, outbox).
struct AppleStore: Sendable {
  static let name = "apple"
  let config: StoreSimulator.Apple
  let signer: AppleSigner
  private(set) var subscriptions: [String: AppleSubscription] = [:]
  private(set) var transactions: [String: AppleTransaction] = [:]
  private(set) var orders: [String: [String]] = [:]

  init(config: StoreSimulator.Apple, signer: AppleSigner) {
    self.config = config
    self.signer = signer
  }

  // MARK: Reading

  func subscription(containing transactionId: String) -> AppleSubscription? {
    transactions[transactionId].flatMap { subscriptions[$0.originalTransactionId] }
  }

  func chain(_ subscription: AppleSubscription) -> [AppleTransaction] {
    subscription.transactionIds.compactMap { transactions[$0] }
  }

  func latestTransaction(_ subscription: AppleSubscription) -> AppleTransaction? {
    subscription.transactionIds.last.flatMap { transactions[$0] }
  }

  func signedTransaction(_ transaction: AppleTransaction, nowMs: Int64) -> String {
    var signed = transaction
    signed.signedDate = nowMs
    return signer.sign(signed)
  }

  func renewalInfo(_ subscription: AppleSubscription, nowMs: Int64) -> AppleRenewalInfo {
    let renewing = subscription.autoRenewOn && subscription.state != .expired && subscription.state != .revoked
    let price = config.product(subscription.autoRenewProductId)?.price ?? 0
    return AppleRenewalInfo(
      originalTransactionId: subscription.originalTransactionId, autoRenewProductId: subscription.autoRenewProductId,
      productId: subscription.productId, autoRenewStatus: subscription.autoRenewOn ? 1 : 0,
      expirationIntent: subscription.state == .expired ? subscription.expirationIntent : nil,
      isInBillingRetryPeriod: subscription.inBillingTrouble ? true : (subscription.state == .expired ? false : nil),
      gracePeriodExpiresDate: subscription.state == .gracePeriod ? subscription.gracePeriodExpiresMs : nil,
      recentSubscriptionStartDate: subscription.recentStartMs,
      renewalDate: renewing ? subscription.expiresMs : nil, environment: subscription.environment, signedDate: nowMs,
      appAccountToken: subscription.appAccountToken, currency: config.currency, renewalPrice: price)
  }

  func signedRenewalInfo(_ subscription: AppleSubscription, nowMs: Int64) -> String {
    signer.sign(renewalInfo(subscription, nowMs: nowMs))
  }

  // MARK: Building blocks

  /// Records a new transaction in `subscription`'s chain.
  @discardableResult
  mutating func addTransaction(
    to subscription: inout AppleSubscription, productId: String, purchaseMs: Int64, expiresMs: Int64, reason: String,
    price: Int64, offer: (type: Int, discount: String)? = nil, core: inout SimCore
  ) -> AppleTransaction {
    let idBase: Int64 = subscription.environment == "Production" ? 1_000_000_100_000_000 : 2_000_000_100_000_000
    let id = String(core.nextId("apple.transaction", start: 1) + idBase)
    let lineItem = String(core.nextId("apple.webOrderLineItem", start: 1) + idBase / 10)
    let orderId = "SIM" + String(core.nextId("apple.order", start: 46_656), radix: 36).uppercased()
    var transaction = AppleTransaction(
      transactionId: id,
      originalTransactionId: subscription.transactionIds.isEmpty ? id : subscription.originalTransactionId,
      webOrderLineItemId: lineItem, bundleId: subscription.bundleId, productId: productId,
      groupId: subscription.groupId, purchaseDate: purchaseMs,
      originalPurchaseDate: subscription.transactionIds.isEmpty ? purchaseMs : subscription.originalPurchaseMs,
      expiresDate: expiresMs, environment: subscription.environment, storefront: config.storefront,
      storefrontId: config.storefrontId, reason: reason, currency: config.currency, price: price, orderId: orderId)
    transaction.appAccountToken = subscription.appAccountToken
    transaction.inAppOwnershipType = subscription.ownership
    transaction.offerType = offer?.type
    transaction.offerDiscountType = offer?.discount
    transaction.type = subscription.type.rawValue
    if subscription.type.isOneTime {
      transaction.expiresDate = nil
      transaction.webOrderLineItemId = nil
      transaction.subscriptionGroupIdentifier = nil
    }
    if subscription.transactionIds.isEmpty {
      subscription.originalTransactionId = id
      subscription.originalPurchaseMs = purchaseMs
    }
    subscription.transactionIds.append(id)
    subscription.productId = productId
    subscription.expiresMs = expiresMs
    transactions[id] = transaction
    orders[orderId, default: []].append(id)
    return transaction
  }

  mutating func save(_ subscription: AppleSubscription) {
    subscriptions[subscription.originalTransactionId] = subscription
  }

  mutating func updateTransaction(_ id: String, _ change: (inout AppleTransaction) -> Void) {
    if var transaction = transactions[id] {
      change(&transaction)
      transactions[id] = transaction
    }
  }

  /// Invalidates the subscription's pending events and schedules its next renewal.
  func scheduleRenewal(_ subscription: inout AppleSubscription, core: inout SimCore) {
    subscription.epoch += 1
    guard subscription.organizer == nil else { return }
    core.schedule(
      at: subscription.expiresMs, store: Self.name, kind: "renew", subject: subscription.originalTransactionId,
      epoch: subscription.epoch)
  }

  func schedule(_ kind: String, at atMs: Int64, _ subscription: AppleSubscription, core: inout SimCore) {
    core.schedule(
      at: atMs, store: Self.name, kind: kind, subject: subscription.originalTransactionId, epoch: subscription.epoch)
  }

  /// Queues a signed V2 notification about `subscription` (its latest transaction unless
  /// `transaction` says otherwise) for the app's notification URL.
  func notify(
    _ type: String, _ subtype: String?, _ subscription: AppleSubscription, transaction: AppleTransaction? = nil,
    core: inout SimCore
  ) {
    guard let app = config.app(subscription.bundleId), let url = app.notificationURL,
      let transaction = transaction ?? latestTransaction(subscription)
    else { return }
    let uuid = UUID().uuidString.lowercased()
    // Renewal info and status are for auto-renewable subscriptions only.
    let renews = subscription.type == .autoRenewable
    let payload = AppleNotificationPayload(
      notificationType: type, subtype: subtype, notificationUUID: uuid, signedDate: core.nowMs,
      data: .init(
        appAppleId: app.appAppleId, bundleId: app.bundleId, bundleVersion: app.bundleVersion,
        environment: subscription.environment,
        signedTransactionInfo: signedTransaction(transaction, nowMs: core.nowMs),
        signedRenewalInfo: renews ? signedRenewalInfo(subscription, nowMs: core.nowMs) : nil,
        status: renews ? subscription.state.status : nil))
    let body = AppleNotificationBody(signedPayload: signer.sign(payload))
    let encoded = (try? JSONEncoder().encode(body)).map(Array.init) ?? []
    core.outbox.append(
      OutgoingNotification(
        store: Self.name, url: url, body: encoded, notificationUUID: uuid, notificationType: type, subtype: subtype,
        subject: subscription.originalTransactionId, virtualTimeMs: core.nowMs))
  }
}
