import Foundation
import GooglePlayGateway
import Logging
import StoreSimulator
import Testing
import TollgateClient
import TollgateCore
import TollgateCrypto
import TollgateDemo
import TollgateServer
import TollgateTesting
import TollgateWorker

/// A `LocalStack` in a temporary directory, with the helpers the end-to-end tests use.
struct Stack {
  static let bundleId = LocalStack.bundleId
  static let premium = LocalStack.premium
  static let monthly = LocalStack.monthly
  static let basic = LocalStack.basic

  let dir: TemporaryDirectory
  let local: LocalStack

  var sim: StoreSimulator { local.sim }
  var worker: VerifierWorker { local.worker }
  var client: TollgateClient { local.client }

  func buyAndSubmit(
    _ productId: String = premium, userId: String, offer: String? = nil, environment: String = "Sandbox"
  ) async throws -> (purchase: ApplePurchaseResult, response: Tollgate_V1_SubmitPurchaseResponse) {
    let purchase = try await local.buy(productId, offer: offer, environment: environment)
    return (purchase, try await local.submit(purchase.signedTransaction, userId: userId))
  }

  func submit(_ receipt: String, userId: String) async throws -> Tollgate_V1_SubmitPurchaseResponse {
    try await local.submit(receipt, userId: userId)
  }

  func answer(_ userId: String, _ entitlement: String = "premium") async throws -> Tollgate_V1_IsSubscriberResponse {
    try await client.isSubscriber(userId: userId, entitlement: entitlement)
  }

  @discardableResult
  func until(
    _ userId: String, _ entitlement: String = "premium", timeout: Duration = .seconds(30),
    _ condition: (Tollgate_V1_IsSubscriberResponse) -> Bool
  ) async throws -> Tollgate_V1_IsSubscriberResponse {
    try await local.until(userId, entitlement, timeout: timeout, condition)
  }

  func events(_ userId: String) async throws -> [String] {
    try await worker.storage.events(userId: userId).map(\.kind)
  }

  /// Waits until the user's events include `kind`, and returns them all.
  func events(_ userId: String, awaiting kind: String, timeout: Duration = .seconds(30)) async throws -> [String] {
    _ = try await eventually(timeout: timeout) { try await self.events(userId).contains(kind) }
    return try await events(userId)
  }

  /// Waits until the worker has nothing pending or in flight, and the service's index has every
  /// change the worker wrote (it follows the change feed every few milliseconds).
  func settle(timeout: Duration = .seconds(30)) async throws {
    _ = try await eventually(timeout: timeout) {
      let counts = try await worker.storage.inboxCounts()
      return (counts["pending"] ?? 0) + (counts["processing"] ?? 0) == 0
    }
    let head = try await local.storage.headSeq()
    let applied = await local.server.follower.waitUntilApplied(head, timeout: timeout)
    #expect(applied, "the service's index did not reach change \(head)")
  }

  /// Buys `productId` on the simulated Google Play (as the app's Billing Library would).
  func googleBuy(
    _ productId: String = monthly, offer: String? = nil, accountId: String? = nil, testPurchase: Bool = false
  ) async throws -> GooglePurchaseResult {
    try await local.googleBuy(productId, offer: offer, accountId: accountId, testPurchase: testPurchase)
  }

  /// Submits a Google Play purchase token for `userId` through the service, waiting for the verdict.
  /// `billing`: the Play Billing purchase data and signature the app may send along.
  func googleSubmit(
    _ purchaseToken: String, productId: String = monthly, userId: String,
    billing: (purchaseData: String, signature: String)? = nil
  ) async throws -> Tollgate_V1_SubmitPurchaseResponse {
    try await local.googleSubmit(purchaseToken: purchaseToken, productId: productId, userId: userId, billing: billing)
  }

  /// Buys and submits; then, unless `acknowledged` is false (an app that acknowledges itself),
  /// waits until the worker's acknowledgement reached the simulator, so a clock jump right after
  /// cannot pass Google's 3-day deadline first.
  func googleBuyAndSubmit(
    _ productId: String = monthly, userId: String, offer: String? = nil, acknowledged: Bool = true
  ) async throws -> (purchase: GooglePurchaseResult, response: Tollgate_V1_SubmitPurchaseResponse) {
    let purchase = try await googleBuy(productId, offer: offer)
    let response = try await googleSubmit(purchase.purchaseToken, productId: productId, userId: userId)
    if acknowledged && response.status == .verified { try await local.awaitAcknowledgement(purchase.purchaseToken) }
    return (purchase, response)
  }

  static func freePort() async throws -> Int { try await LocalStack.freePort() }
  static func publicPEM(_ key: P256PrivateKey) throws -> String { try LocalStack.publicPEM(key) }
}

/// Runs `body` against a fresh stack and always stops it.
/// `clockBehindStoreMs`: the worker's and service's clock runs this far behind the store's.
func withStack(
  transferPolicy: TransferPolicy = .keepWithOriginalOwner, environment: String = "sandbox", allowSandbox: Bool = false,
  clockBehindStoreMs: Int64 = 0, configure: (inout WorkerSettings) -> Void = { _ in },
  googlePlay: (inout GooglePlayAppSettings) -> Void = { _ in }, catalog: (inout ProductCatalog) -> Void = { _ in },
  _ body: (Stack) async throws -> Void
) async throws {
  let dir = try TemporaryDirectory(prefix: "tollgate-stack")
  defer { dir.remove() }
  try await LocalStack.run(
    directory: dir.path, transferPolicy: transferPolicy, appEnvironment: environment, allowSandbox: allowSandbox,
    configure: configure, googlePlay: googlePlay, catalog: catalog, clockBehindStoreMs: clockBehindStoreMs,
    logger: Logger(label: "e2e.stack")
  ) { local in
    try await body(Stack(dir: dir, local: local))
  }
}
