import Foundation
import TollgateCrypto

/// The simulated Amazon Appstore: receipts (one per subscription term, entitlement or
/// consumable), the subscriptions they chain into, and the apps' SNS endpoints. Every change
/// happens under the simulator's lock, against the store-neutral `SimCore`.
struct AmazonStore: Sendable {
  static let name = "amazon"
  let config: StoreSimulator.Amazon
  let signer: AmazonSNSSigner
  /// `http://HOST:PORT` of the simulator, once it listens: the base of `SigningCertURL`,
  /// `SubscribeURL` and `UnsubscribeURL`.
  var baseURL = ""
  var receipts: [String: AmazonReceipt] = [:]
  var subscriptions: [String: AmazonSubscription] = [:]
  /// The SNS subscription of each app's notification URL, by package name.
  var endpoints: [String: AmazonEndpoint] = [:]

  init(config: StoreSimulator.Amazon, signer: AmazonSNSSigner) {
    self.config = config
    self.signer = signer
  }

  // MARK: Reading

  /// The app named `packageName`, or the only app when `nil`.
  func app(_ packageName: String?) throws(StoreSimulatorError) -> StoreSimulator.AmazonApp {
    if let packageName {
      guard let app = config.app(packageName) else { throw .invalid("no Amazon app \(packageName) is configured") }
      return app
    }
    guard config.apps.count == 1, let only = config.apps.first else {
      throw .invalid("name the appPackageName: \(config.apps.count) Amazon apps are configured")
    }
    return only
  }

  func receipt(_ receiptId: String) throws(StoreSimulatorError) -> AmazonReceipt {
    guard let receipt = receipts[receiptId] else { throw .notFound("no Amazon receipt with that id") }
    return receipt
  }

  /// The subscription `receiptId` (any of its receipts) belongs to.
  func subscription(of receiptId: String) throws(StoreSimulatorError) -> AmazonSubscription {
    guard let id = try receipt(receiptId).subscriptionId, let subscription = subscriptions[id] else {
      throw .conflict("the receipt is not a subscription's")
    }
    return subscription
  }

  // MARK: Ids

  /// A receipt id in Amazon's shape: base64 (with `=` padding) of 32 random bytes, then
  /// `:<type>:11` (1 consumable, 2 entitlement, 3 subscription, as in Amazon's examples) and a
  /// `#<serial>` suffix, so that `=`, `:` and `#` all need percent-encoding in an RVS path.
  static func newReceiptId(_ type: AmazonProductType, core: inout SimCore) -> String {
    let serial = core.nextId("amazon.receipt", start: 1)
    let digit =
      switch type {
      case .consumable: 1
      case .entitled: 2
      case .subscription: 3
      }
    let body = Base64.encode(randomBytes(32)).replacingOccurrences(of: "+", with: "-")
      .replacingOccurrences(of: "/", with: "_")
    return "\(body):\(digit):11#\(serial)"
  }

  /// An Amazon user id: base64 of 32 random bytes (`+`, `/` and `=` included, as some are).
  static func newUserId() -> String { Base64.encode(randomBytes(32)) }

  private static func randomBytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255) } }

  // MARK: Scheduling

  /// Invalidates the subscription's pending events and schedules the end of its term.
  func scheduleTermEnd(_ subscription: inout AmazonSubscription, core: inout SimCore) {
    subscription.epoch += 1
    schedule("termEnd", at: subscription.termEndMs, subscription, core: &core)
  }

  func schedule(_ kind: String, at atMs: Int64, _ subscription: AmazonSubscription, core: inout SimCore) {
    core.schedule(
      at: atMs, store: Self.name, kind: kind, subject: subscription.subscriptionId, epoch: subscription.epoch)
  }

  mutating func save(_ subscription: AmazonSubscription) { subscriptions[subscription.subscriptionId] = subscription }

  mutating func save(_ receipt: AmazonReceipt) { receipts[receipt.receiptId] = receipt }
}
