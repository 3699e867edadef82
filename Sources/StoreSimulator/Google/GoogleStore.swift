import Foundation

/// The simulated Google Play: subscription and one-time purchase tokens, voided purchases, and
/// the rules that move them along the virtual clock. Every change happens under the simulator's
/// lock, against the store-neutral `SimCore` (clock, scheduler, outbox).
struct GoogleStore: Sendable {
  static let name = "google"
  let config: StoreSimulator.Google
  let credentials: GoogleCredentials
  let virtualNow: VirtualNowMirror
  var subscriptions: [String: GoogleSubscriptionPurchase] = [:]
  var products: [String: GoogleProductPurchase] = [:]
  /// Every voided purchase, in voiding order.
  var voided: [GoogleVoidedPurchase] = []

  init(config: StoreSimulator.Google, credentials: GoogleCredentials, virtualNow: VirtualNowMirror) {
    self.config = config
    self.credentials = credentials
    self.virtualNow = virtualNow
  }

  // MARK: Reading

  /// The app named `packageName`, or the only app when `nil`.
  func app(_ packageName: String?) throws(StoreSimulatorError) -> StoreSimulator.GoogleApp {
    if let packageName {
      guard let app = config.app(packageName) else { throw .invalid("no Google app \(packageName) is configured") }
      return app
    }
    guard config.apps.count == 1, let only = config.apps.first else {
      throw .invalid("name the packageName: \(config.apps.count) Google apps are configured")
    }
    return only
  }

  func subscription(_ token: String) throws(StoreSimulatorError) -> GoogleSubscriptionPurchase {
    guard let subscription = subscriptions[token] else { throw .notFound("no Google subscription with that token") }
    return subscription
  }

  func product(_ token: String) throws(StoreSimulatorError) -> GoogleProductPurchase {
    guard let product = products[token] else { throw .notFound("no Google one-time purchase with that token") }
    return product
  }

  func isVoided(_ token: String) -> Bool { voided.contains { $0.purchaseToken == token } }

  // MARK: Building blocks

  mutating func save(_ subscription: GoogleSubscriptionPurchase) {
    subscriptions[subscription.purchaseToken] = subscription
  }

  mutating func save(_ product: GoogleProductPurchase) { products[product.purchaseToken] = product }

  /// A purchase token shaped like Google's: 24 lower-case letters, `.`, then `AO-J1O` and 134
  /// characters of the base64url alphabet.
  static func newPurchaseToken() -> String {
    let letters = Array("abcdefghijklmnopqrstuvwxyz")
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    let head = String((0..<24).map { _ in letters.randomElement() ?? "a" })
    let tail = String((0..<134).map { _ in alphabet.randomElement() ?? "A" })
    return "\(head).AO-J1O\(tail)"
  }

  /// `GPA.3xxx-xxxx-xxxx-xxxxx`, unique within the run.
  static func newOrderId(core: inout SimCore) -> String {
    let serial = core.nextId("google.order", start: 1)
    func digits(_ count: Int) -> String { String((0..<count).map { _ in "0123456789".randomElement() ?? "0" }) }
    let tail = String(serial % 100_000)
    return "GPA.33\(digits(2))-\(digits(4))-\(digits(4))-" + String(repeating: "0", count: 5 - tail.count) + tail
  }

  /// Invalidates the subscription's pending events and schedules the end of its period.
  func scheduleExpiry(_ subscription: inout GoogleSubscriptionPurchase, core: inout SimCore) {
    subscription.epoch += 1
    schedule("periodEnd", at: subscription.expiryTimeMs, subscription, core: &core)
  }

  func schedule(_ kind: String, at atMs: Int64, _ subscription: GoogleSubscriptionPurchase, core: inout SimCore) {
    core.schedule(
      at: atMs, store: Self.name, kind: kind, subject: subscription.purchaseToken, epoch: subscription.epoch)
  }

  // MARK: Notifications

  /// Queues a `subscriptionNotification` of `type` about `subscription`.
  func notify(_ type: GoogleNotificationType, _ subscription: GoogleSubscriptionPurchase, core: inout SimCore) {
    let member: [String: Any] = [
      "version": "1.0", "notificationType": type.rawValue, "purchaseToken": subscription.purchaseToken,
      "subscriptionId": subscription.productId,
    ]
    push(
      subscription.packageName, "subscriptionNotification", member, name: type.name,
      subject: subscription.purchaseToken, core: &core)
  }

  /// Queues a `oneTimeProductNotification` (1 purchased, 2 canceled).
  func notifyOneTime(_ type: Int, _ product: GoogleProductPurchase, core: inout SimCore) {
    let member: [String: Any] = [
      "version": "1.0", "notificationType": type, "purchaseToken": product.purchaseToken, "sku": product.productId,
    ]
    let name = type == 1 ? "ONE_TIME_PRODUCT_PURCHASED" : "ONE_TIME_PRODUCT_CANCELED"
    push(
      product.packageName, "oneTimeProductNotification", member, name: name, subject: product.purchaseToken, core: &core
    )
  }

  /// Queues a `voidedPurchaseNotification` (full refund).
  func notifyVoided(_ voided: GoogleVoidedPurchase, core: inout SimCore) {
    let member: [String: Any] = [
      "purchaseToken": voided.purchaseToken, "orderId": voided.orderId, "productType": voided.productType,
      "refundType": 1,
    ]
    push(
      voided.packageName, "voidedPurchaseNotification", member, name: "VOIDED_PURCHASE", subject: voided.purchaseToken,
      core: &core)
  }

  /// Queues a `testNotification`, as the Play Console's "Send test notification" does.
  func notifyTest(packageName: String, core: inout SimCore) {
    push(packageName, "testNotification", ["version": "1.0"], name: "TEST_NOTIFICATION", subject: "-", core: &core)
  }

  /// The token the app's push subscription signs its pushes with (`nil` without a notification URL).
  func pushToken(_ packageName: String?) throws(StoreSimulatorError) -> GooglePushToken? {
    let app = try app(packageName)
    guard let url = app.notificationURL else { return nil }
    return GooglePushToken(
      key: credentials.oidcKey, kid: credentials.oidcKid, audience: app.effectivePushAudience ?? url,
      email: app.pushServiceAccount, clock: config.pushTokenClock, virtualNow: virtualNow)
  }

  /// A Pub/Sub push of a DeveloperNotification with `member` set, to the app's notification URL.
  private func push(
    _ packageName: String, _ memberName: String, _ member: [String: Any], name: String, subject: String,
    core: inout SimCore
  ) {
    guard let app = config.app(packageName), let url = app.notificationURL else { return }
    let notification: [String: Any] = [
      "version": "1.0", "packageName": packageName, "eventTimeMillis": String(core.nowMs), memberName: member,
    ]
    let messageId = String(core.nextId("google.message", start: 12_000_000_000_000_000))
    let publishTime = GoogleTimeText.rfc3339(core.nowMs)
    let data = (try? JSONSerialization.data(withJSONObject: notification, options: [.sortedKeys])) ?? Data()
    let envelope: [String: Any] = [
      "message": [
        "data": data.base64EncodedString(), "messageId": messageId, "message_id": messageId,
        "publishTime": publishTime, "publish_time": publishTime,
      ],
      "subscription": app.pubSubSubscription,
    ]
    let body = (try? JSONSerialization.data(withJSONObject: envelope, options: [.sortedKeys, .withoutEscapingSlashes]))
    guard let token = try? pushToken(packageName) else { return }
    core.outbox.append(
      OutgoingNotification(
        store: Self.name, url: url, body: Array(body ?? Data()), notificationUUID: messageId, notificationType: name,
        subtype: nil, subject: subject, virtualTimeMs: core.nowMs, bearerToken: { await token.mint() }))
  }
}
