import Foundation
import Logging
import StoreSimulator
import Testing
import TollgateClient
import TollgateCrypto
import TollgateTesting

/// `tollgate serve` and `tollgate worker` as processes on one SQLite database, the worker
/// configured for all three simulated stores (over HTTP, on the simulator's clock) and posting
/// webhooks to `webhookURL`. The stores post their notifications to the worker's public port;
/// Amazon's SNS subscription is confirmed before `start` returns.
struct ThreeStoreProcesses {
  let dir: TemporaryDirectory
  let sim: StoreSimulator
  let serve: ServeAccessEndToEndTests.Running
  let worker: LoggedWorker
  let notificationPort: Int
  let adminPort: Int
  var database: String { dir.file("tollgate.sqlite") }

  static let amazonApp = "com.example.amazon"

  static func start(prefix: String, webhookURL: String) async throws -> ThreeStoreProcesses {
    let dir = try TemporaryDirectory(prefix: prefix)
    let key = try P256PrivateKey.generate()
    let port = try await Stack.freePort()
    var simConfig = StoreSimulator.Config.defaults
    simConfig.notificationRetryDelaysMs = [200, 500, 1_000]
    simConfig.apple.apps[0].apiKey = .init(keyId: "KEY1", issuerId: "ISSUER", publicKeyPEM: try Stack.publicPEM(key))
    simConfig.apple.apps[0].notificationURL = "http://127.0.0.1:\(port)/notifications/apple/v2"
    simConfig.google.apps[0].notificationURL = "http://127.0.0.1:\(port)/notifications/google"
    let sim = try await StoreSimulator.start(config: simConfig, logger: Logger(label: "three-stores.sim"))
    var serve: ServeAccessEndToEndTests.Running?
    var worker: LoggedWorker?
    do {
      try Data(sim.rootCertificate.der).write(to: URL(fileURLWithPath: dir.file("root.cer")))
      let google = simConfig.google.apps[0]
      let config: [String: Any] = [
        "apps": [
          ["id": "ios", "store": "app_store", "bundleId": Stack.bundleId],
          ["id": "android", "store": "google_play", "packageName": google.packageName],
          ["id": "amazon", "store": "amazon", "amazonAppId": Self.amazonApp],
        ],
        "entitlements": [["id": "premium"]],
        "products": [["productId": Stack.premium, "entitlements": ["premium"]]],
        "worker": [
          "listen": "127.0.0.1:\(port)", "adminListen": "127.0.0.1:0", "database": dir.file("tollgate.sqlite"),
          "pollMs": 5, "backoffBaseMs": 50, "backoffMaxMs": 200, "followClockURL": sim.baseURL,
        ],
        "webhooks": [["url": webhookURL, "secretEnv": "HOOK_SECRET", "maxAttempts": 1_000]],
        "appStore": [
          [
            "bundleId": Stack.bundleId, "appAppleId": simConfig.apple.apps[0].appAppleId, "environment": "sandbox",
            "apiKeyId": "KEY1", "apiIssuerId": "ISSUER", "apiPrivateKeyEnv": "THREE_APPLE_KEY",
            "apiBaseURL": sim.baseURL + "/sandbox", "rootCertificates": [dir.file("root.cer")],
          ]
        ],
        "googlePlay": [
          [
            "packageName": google.packageName, "serviceAccountKeyEnv": "THREE_GOOGLE_KEY",
            "apiBaseURL": sim.googleAPIBaseURL, "tokenURI": sim.googleTokenURI, "jwksURL": sim.googleJWKSURL,
            "pushAudience": google.effectivePushAudience ?? "", "pushServiceAccount": google.pushServiceAccount,
          ]
        ],
        "amazon": [
          [
            "appPackageName": Self.amazonApp, "sharedSecretEnv": "THREE_AMAZON_SECRET",
            "rvsBaseURL": sim.amazonRVSBaseURL, "rvsSandboxBaseURL": sim.amazonRVSSandboxBaseURL,
            "allowedTopicArns": [try sim.amazonTopicArn()],
            "trustedCertificateURLPrefixes": [sim.amazonSNSCertificateURLPrefix],
          ]
        ],
      ]
      try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: dir.file("config.json")))
      let environment = [
        "THREE_APPLE_KEY": try key.pkcs8PEM(), "THREE_GOOGLE_KEY": sim.googleServiceAccountKeyJSON,
        "THREE_AMAZON_SECRET": try sim.amazonSharedSecret(), "HOOK_SECRET": "s3cret",
      ]
      let started = try await LoggedWorker.start(
        "worker", config: dir.file("config.json"), in: dir, environment: environment)
      worker = started
      let line = try #require(started.output.split(separator: "\n").first { $0.contains("notifications on") })
      let adminPort = try WorkerProcesses.ports(announcedIn: String(line)).adminPort
      try await sim.amazonSetNotificationURL("http://127.0.0.1:\(port)/notifications/amazon")
      let confirmed = try await eventually(timeout: .seconds(10)) {
        try sim.amazonNotificationEndpoint() == "confirmed"
      }
      guard confirmed != nil else { throw WorkerDidNotStart(stderr: "Amazon's SNS subscription was not confirmed") }
      let running = try await ServeAccessEndToEndTests.serve(
        ["listen": "127.0.0.1:0", "database": dir.file("tollgate.sqlite")], in: dir)
      serve = running
      return ThreeStoreProcesses(
        dir: dir, sim: sim, serve: running, worker: started, notificationPort: port, adminPort: adminPort)
    } catch {
      serve?.process.terminate()
      _ = serve?.process.finish()
      if let worker { await worker.stop() }
      await sim.stop()
      dir.remove()
      throw error
    }
  }

  /// A client of the serve process.
  func client() throws -> TollgateClient { try ServeAccessEndToEndTests.client(serve.tcp) }

  /// Buys a monthly subscription at `store` and returns the SubmitPurchase for `user` that
  /// tells Tollgate of it (Google's purchases are left unacknowledged, as a new one is).
  func buy(_ store: Tollgate_V1_Store, user: String) async throws -> Tollgate_V1_SubmitPurchaseRequest {
    var request = Tollgate_V1_SubmitPurchaseRequest()
    request.userID = user
    request.store = store
    request.waitMs = 10_000
    switch store {
    case .googlePlay:
      let purchase = try await sim.googlePurchase(.init(productId: Stack.premium))
      request.purchaseToken = purchase.purchaseToken
      request.productID = Stack.premium
    case .amazon:
      let purchase = try await sim.amazonPurchase(.init(sku: Stack.premium, appPackageName: Self.amazonApp))
      request.receiptID = purchase.receiptId
      request.amazonUserID = purchase.userId
      request.appID = Self.amazonApp
    default:
      let purchase = try await sim.purchase(
        .init(productId: Stack.premium, bundleId: Stack.bundleId, environment: "Sandbox"))
      request.receipt = purchase.signedTransaction
    }
    return request
  }

  /// `GET path` on the worker's admin listener.
  func admin(_ path: String) async throws -> (status: Int, body: String) {
    try await httpRequest("GET", port: adminPort, path: path)
  }

  /// Stops both processes and the simulator and removes the directory.
  func stop() async {
    serve.process.terminate()
    _ = serve.process.finish()
    await worker.stop()
    await sim.stop()
    dir.remove()
  }
}
