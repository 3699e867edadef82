import Foundation
import Logging
import NIOCore
import NIOPosix
import StoreSimulator
import TollgateCore
import TollgateCrypto
import TollgateRPC
import TollgateService
import TollgateStorage
import TollgateTesting
import TollgateWorker

/// The whole system on loopback: the store simulator, the worker and the service, on one SQLite
/// file, all following the simulator's virtual clock. Only base URLs and the pinned root differ
/// from production.
struct Stack {
  static let bundleId = "com.example.app"
  static let premium = "com.example.premium.monthly"
  static let monthly = "com.example.monthly"
  static let basic = "com.example.basic.monthly"

  let dir: TemporaryDirectory
  let sim: StoreSimulator
  let worker: VerifierWorker
  let workerTask: Task<Void, any Error>
  let server: EntitlementServer
  let followTask: Task<Void, any Error>
  let client: TollgateClient
  let configuration: WorkerConfiguration
  let environment: [String: String]

  var databasePath: String { dir.file("tollgate.sqlite") }

  static func catalog(transferPolicy: TransferPolicy = .keepWithOriginalOwner) -> TollgateConfig {
    TollgateConfig(
      apps: [AppConfig(id: "ios", store: .appStore, bundleId: bundleId)],
      entitlements: [EntitlementDefinition(id: "premium"), EntitlementDefinition(id: "basic")],
      products: [
        ProductConfig(productId: premium, store: .appStore, entitlements: ["premium", "basic"]),
        ProductConfig(productId: monthly, store: .appStore, entitlements: ["premium", "basic"]),
        ProductConfig(productId: basic, store: .appStore, entitlements: ["basic"]),
      ],
      subscriptionGroups: [
        SubscriptionGroup(
          id: "21000001", store: .appStore,
          products: [.init(productId: premium, level: 1), .init(productId: monthly, level: 2), .init(productId: basic, level: 3)])
      ],
      transferPolicy: transferPolicy)
  }

  static func start(
    transferPolicy: TransferPolicy = .keepWithOriginalOwner, environment appEnvironment: String = "sandbox",
    allowSandbox: Bool = false, workerPort: Int? = nil
  ) async throws -> Stack {
    let dir = try TemporaryDirectory(prefix: "tollgate-stack")
    let key = try P256PrivateKey.generate()
    var port = workerPort ?? 0
    if port == 0 { port = try await freePort() }
    var simConfig = StoreSimulator.Config.defaults
    simConfig.notificationRetryDelaysMs = [200, 500, 1_000]
    simConfig.apple.apps[0].apiKey = .init(keyId: "KEY1", issuerId: "ISSUER", publicKeyPEM: try publicPEM(key))
    simConfig.apple.apps[0].notificationURL = "http://127.0.0.1:\(port)/notifications/apple/v2"
    let sim = try await StoreSimulator.start(config: simConfig, logger: Logger(label: "e2e.sim"))
    let root = dir.file("apple-root.cer")
    try Data(sim.rootCertificate.der).write(to: URL(fileURLWithPath: root))

    var app = AppleAppSettings(bundleId: bundleId)
    app.appAppleId = simConfig.apple.apps[0].appAppleId
    app.environment = appEnvironment
    app.allowSandbox = allowSandbox
    app.apiKeyId = "KEY1"
    app.apiIssuerId = "ISSUER"
    app.apiPrivateKeyEnv = "TEST_APPLE_KEY"
    app.apiBaseURL = appEnvironment == "sandbox" ? sim.baseURL + "/sandbox" : sim.baseURL
    app.sandboxAPIBaseURL = sim.baseURL + "/sandbox"
    app.verifyReceiptURL = sim.baseURL + "/verifyReceipt"
    app.sandboxVerifyReceiptURL = sim.baseURL + "/sandbox/verifyReceipt"
    app.rootCertificates = [root]
    var settings = WorkerSettings()
    settings.listen = "127.0.0.1:\(port)"
    settings.pollMs = 5
    settings.backoffBaseMs = 50
    settings.backoffMaxMs = 400
    let configuration = WorkerConfiguration(catalog: catalog(transferPolicy: transferPolicy), worker: settings, appStore: [app])
    let environment = ["TEST_APPLE_KEY": try key.pkcs8PEM()]
    // Follow the simulator's clock: its jumps, plus real time in between (backoff and leases).
    let clock = FollowedClock(virtualMs: sim.clockNowMs)
    let now: @Sendable () -> Int64 = {
      clock.observe(virtualMs: sim.clockNowMs)
      return clock.nowMs()
    }

    let worker = try VerifierWorker(
      configuration: configuration, databasePath: dir.file("tollgate.sqlite"), environment: environment, nowMs: now,
      logger: Logger(label: "e2e.worker"))
    let workerTask = Task { try await worker.run() }
    _ = await worker.listeningPort()
    let storage = try SQLiteEntitlementStorage(path: dir.file("tollgate.sqlite"), nowMs: now())
    let server = try await EntitlementServer.start(
      config: .init(host: "127.0.0.1", port: 0), storage: storage, nowMs: now, logger: Logger(label: "e2e.serve"))
    let followTask = Task { try await server.follower.run() }
    let client = TollgateClient(host: "127.0.0.1", port: server.port)
    return Stack(
      dir: dir, sim: sim, worker: worker, workerTask: workerTask, server: server, followTask: followTask, client: client,
      configuration: configuration, environment: environment)
  }

  func stop() async {
    await client.close()
    followTask.cancel()
    workerTask.cancel()
    _ = await workerTask.result
    await server.shutdown()
    await sim.stop()
    dir.remove()
  }

  /// Buys `productId` in the simulator and submits the signed transaction for `userId`, waiting
  /// for the verdict.
  func buyAndSubmit(
    _ productId: String = premium, userId: String, offer: String? = nil, environment: String = "Sandbox"
  ) async throws -> (purchase: ApplePurchaseResult, response: Tollgate_V1_SubmitPurchaseResponse) {
    let purchase = try await sim.purchase(
      ApplePurchaseRequest(productId: productId, bundleId: Self.bundleId, offer: offer, environment: environment))
    return (purchase, try await submit(purchase.signedTransaction, userId: userId))
  }

  func submit(_ receipt: String, userId: String) async throws -> Tollgate_V1_SubmitPurchaseResponse {
    var request = Tollgate_V1_SubmitPurchaseRequest()
    request.userID = userId
    request.store = .appStore
    request.receipt = receipt
    request.waitMs = 8_000
    return try await client.submitPurchase(request, timeout: .seconds(10))
  }

  func answer(_ userId: String, _ entitlement: String = "premium") async throws -> Tollgate_V1_IsSubscriberResponse {
    try await client.isSubscriber(userId: userId, entitlement: entitlement)
  }

  /// Waits until IsSubscriber satisfies `condition` (the worker and the change feed are asynchronous).
  @discardableResult
  func until(
    _ userId: String, _ entitlement: String = "premium", timeout: Duration = .seconds(10),
    _ condition: (Tollgate_V1_IsSubscriberResponse) -> Bool
  ) async throws -> Tollgate_V1_IsSubscriberResponse {
    let clock = ContinuousClock()
    let start = clock.now
    var last = try await answer(userId, entitlement)
    while !condition(last) {
      guard clock.now - start < timeout else { return last }
      try await Task.sleep(for: .milliseconds(20))
      last = try await answer(userId, entitlement)
    }
    return last
  }

  func events(_ userId: String) async throws -> [String] {
    try await worker.storage.events(userId: userId).map(\.kind)
  }

  /// Waits until the user's events include `kind`, and returns them all.
  func events(_ userId: String, awaiting kind: String, timeout: Duration = .seconds(10)) async throws -> [String] {
    let clock = ContinuousClock()
    let start = clock.now
    var events = try await self.events(userId)
    while !events.contains(kind), clock.now - start < timeout {
      try await Task.sleep(for: .milliseconds(20))
      events = try await self.events(userId)
    }
    return events
  }

  static func freePort() async throws -> Int {
    let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
    let port = channel.localAddress!.port!
    try await channel.close()
    return port
  }

  static func publicPEM(_ key: P256PrivateKey) throws -> String {
    let der = try key.publicKey.derRepresentation()
    let base64 = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
    return "-----BEGIN PUBLIC KEY-----\n\(base64)\n-----END PUBLIC KEY-----\n"
  }
}

/// Runs `body` against a fresh stack and always stops it.
func withStack(
  transferPolicy: TransferPolicy = .keepWithOriginalOwner, environment: String = "sandbox", allowSandbox: Bool = false,
  _ body: (Stack) async throws -> Void
) async throws {
  let stack = try await Stack.start(transferPolicy: transferPolicy, environment: environment, allowSandbox: allowSandbox)
  do {
    try await body(stack)
  } catch {
    await stack.stop()
    throw error
  }
  await stack.stop()
}
