import Foundation
import Logging
import StoreSimulator
import TollgateCore
import TollgateCrypto
import TollgatePostgres
import TollgateStorage
import TollgateStorageFactory
import TollgateTesting
import TollgateWorker

/// Tollgate as a company deploys it beyond one machine (issue 27, docs/deployment.md), all real
/// processes on this host: a PostgreSQL server of the test's own, `tollgate worker` processes
/// sharing its database (`exclusive: false`), `tollgate serve` replicas on it, and the three
/// stores simulated over HTTP. The first worker started receives every store's notifications.
struct PostgresDeployment {
  let dir: TemporaryDirectory
  let server: OwnPostgresServer
  let sim: StoreSimulator
  let notificationPort: Int
  let environment: [String: String]
  /// The database as `--database` takes it (no password: the server's Unix socket).
  var database: String { server.location.description }
  var config: String { dir.file("config.json") }

  static let amazonApp = "com.example.amazon"

  static func make(prefix: String) async throws -> PostgresDeployment {
    let dir = try TemporaryDirectory(prefix: prefix)
    let server: OwnPostgresServer
    do { server = try await OwnPostgresServer.start(prefix: prefix) } catch {
      dir.remove()
      throw error
    }
    do {
      let key = try P256PrivateKey.generate()
      let port = try await Stack.freePort()
      var simConfig = StoreSimulator.Config.defaults
      simConfig.notificationRetryDelaysMs = [200, 500, 1_000, 2_000, 4_000]
      simConfig.apple.apps[0].apiKey = .init(keyId: "KEY1", issuerId: "ISSUER", publicKeyPEM: try Stack.publicPEM(key))
      simConfig.apple.apps[0].notificationURL = "http://127.0.0.1:\(port)/notifications/apple/v2"
      simConfig.google.apps[0].notificationURL = "http://127.0.0.1:\(port)/notifications/google"
      let sim = try await StoreSimulator.start(config: simConfig, logger: Logger(label: "deployment.sim"))
      let deployment = PostgresDeployment(
        dir: dir, server: server, sim: sim, notificationPort: port,
        environment: [
          "DEPLOYMENT_APPLE_KEY": try key.pkcs8PEM(), "DEPLOYMENT_GOOGLE_KEY": sim.googleServiceAccountKeyJSON,
          "DEPLOYMENT_AMAZON_SECRET": try sim.amazonSharedSecret(),
        ])
      try Data(sim.rootCertificate.der).write(to: URL(fileURLWithPath: dir.file("root.cer")))
      try JSONSerialization.data(withJSONObject: try deployment.configuration(simConfig))
        .write(to: URL(fileURLWithPath: deployment.config))
      return deployment
    } catch {
      await server.remove()
      dir.remove()
      throw error
    }
  }

  private func configuration(_ simConfig: StoreSimulator.Config) throws -> [String: Any] {
    let google = simConfig.google.apps[0]
    return [
      "apps": [
        ["id": "ios", "store": "app_store", "bundleId": Stack.bundleId],
        ["id": "android", "store": "google_play", "packageName": google.packageName],
        ["id": "amazon", "store": "amazon", "amazonAppId": Self.amazonApp],
      ],
      "entitlements": [["id": "premium"]],
      "products": [["productId": Stack.premium, "entitlements": ["premium"]]],
      "worker": [
        "listen": "127.0.0.1:0", "adminListen": "127.0.0.1:0", "database": database, "pollMs": 5,
        "backoffBaseMs": 50, "backoffMaxMs": 500, "leaseMs": 2_000, "followClockURL": sim.baseURL,
        "exclusive": false, "storeConcurrency": 2,
      ],
      "appStore": [
        [
          "bundleId": Stack.bundleId, "appAppleId": simConfig.apple.apps[0].appAppleId, "environment": "sandbox",
          "apiKeyId": "KEY1", "apiIssuerId": "ISSUER", "apiPrivateKeyEnv": "DEPLOYMENT_APPLE_KEY",
          "apiBaseURL": sim.baseURL + "/sandbox", "rootCertificates": [dir.file("root.cer")],
        ]
      ],
      "googlePlay": [
        [
          "packageName": google.packageName, "serviceAccountKeyEnv": "DEPLOYMENT_GOOGLE_KEY",
          "apiBaseURL": sim.googleAPIBaseURL, "tokenURI": sim.googleTokenURI, "jwksURL": sim.googleJWKSURL,
          "pushAudience": google.effectivePushAudience ?? "", "pushServiceAccount": google.pushServiceAccount,
        ]
      ],
      "amazon": [
        [
          "appPackageName": Self.amazonApp, "sharedSecretEnv": "DEPLOYMENT_AMAZON_SECRET",
          "rvsBaseURL": sim.amazonRVSBaseURL, "rvsSandboxBaseURL": sim.amazonRVSSandboxBaseURL,
          "allowedTopicArns": [try sim.amazonTopicArn()],
          "trustedCertificateURLPrefixes": [sim.amazonSNSCertificateURLPrefix],
        ]
      ],
    ]
  }

  /// Starts a worker and waits until it listens; the one that `receivesNotifications` listens on
  /// the port the stores post to (Amazon's subscription is confirmed by it before this returns).
  func startWorker(_ name: String, receivesNotifications: Bool = false) async throws -> LoggedWorker {
    let worker = try await LoggedWorker.start(
      name, config: config, in: dir, environment: environment, listen: receivesNotifications ? notificationPort : nil)
    if receivesNotifications {
      try await sim.amazonSetNotificationURL("http://127.0.0.1:\(notificationPort)/notifications/amazon")
      let confirmed = try await eventually(timeout: .seconds(10)) {
        try sim.amazonNotificationEndpoint() == "confirmed"
      }
      guard confirmed != nil else { throw WorkerDidNotStart(stderr: "Amazon's SNS subscription was not confirmed") }
    }
    return worker
  }

  /// The worker's storage on the deployment's database, as the admin commands open it.
  func workerStorage() async throws -> any WorkerStorage {
    try await StorageLocation(database).workerStorage(
      nowMs: sim.followedNowMs, create: false, environment: [:], logger: Logger(label: "deployment.storage"))
  }

  /// Stops the simulator and the PostgreSQL server and removes their files. With
  /// `TOLLGATE_E2E_KEEP_LOGS` set to a directory, the workers' logs and the server's are copied
  /// into a directory of this deployment's name there first (what a stalled run left behind).
  func remove() async {
    await sim.stop()
    if let keep = ProcessInfo.processInfo.environment["TOLLGATE_E2E_KEEP_LOGS"] {
      let target = keep + "/" + URL(fileURLWithPath: dir.path).lastPathComponent
      try? FileManager.default.copyItem(atPath: dir.path, toPath: target)
      try? FileManager.default.copyItem(atPath: server.directory + "/server.log", toPath: target + "/server.log")
    }
    await server.remove()
    dir.remove()
  }
}
