import Foundation
import Logging
import StoreSimulator
import TollgateCore
import TollgateCrypto
import TollgateSQLite
import TollgateTesting
import TollgateWorkerSQLite

/// `tollgate worker` processes sharing one SQLite database (`worker.exclusive` false), with the
/// App Store and Google Play simulated in-process and followed as the workers' clock. The first
/// worker started receives both stores' notifications (on a port fixed before the simulator
/// starts); every worker logs at `info` to files of its own, so a test can tell which worker
/// applied what (`LoggedWorker`).
struct SharedDatabaseWorkers {
  let dir: TemporaryDirectory
  let sim: StoreSimulator
  let notificationPort: Int
  let environment: [String: String]
  var database: String { dir.file("tollgate.sqlite") }
  var config: String { dir.file("config.json") }

  /// - Parameters:
  ///   - notifications: whether the stores post notifications (to the first worker started).
  ///   - workerSettings: keys of the `worker` section to set (or override).
  static func make(prefix: String, notifications: Bool = true, workerSettings: [String: Any] = [:]) async throws
    -> SharedDatabaseWorkers
  {
    let dir = try TemporaryDirectory(prefix: prefix)
    let key = try P256PrivateKey.generate()
    let port = try await Stack.freePort()
    var simConfig = StoreSimulator.Config.defaults
    simConfig.notificationRetryDelaysMs = [200, 500]
    simConfig.apple.apps[0].apiKey = .init(keyId: "KEY1", issuerId: "ISSUER", publicKeyPEM: try Stack.publicPEM(key))
    if notifications {
      simConfig.apple.apps[0].notificationURL = "http://127.0.0.1:\(port)/notifications/apple/v2"
      simConfig.google.apps[0].notificationURL = "http://127.0.0.1:\(port)/notifications/google"
    }
    let sim = try await StoreSimulator.start(config: simConfig, logger: Logger(label: "shared-db.sim"))
    let google = simConfig.google.apps[0]
    var worker: [String: Any] = [
      "listen": "127.0.0.1:0", "adminListen": "127.0.0.1:0", "database": dir.file("tollgate.sqlite"),
      "pollMs": 5, "backoffBaseMs": 50, "backoffMaxMs": 200, "leaseMs": 5_000, "followClockURL": sim.baseURL,
      "exclusive": false,
    ]
    worker.merge(workerSettings) { $1 }
    let config: [String: Any] = [
      "apps": [
        ["id": "ios", "store": "app_store", "bundleId": Stack.bundleId],
        ["id": "android", "store": "google_play", "packageName": google.packageName],
      ],
      "entitlements": [["id": "premium"]],
      // The same product id in both stores (the simulator's defaults).
      "products": [["productId": Stack.premium, "entitlements": ["premium"]]],
      "worker": worker,
      "appStore": [
        [
          "bundleId": Stack.bundleId, "appAppleId": simConfig.apple.apps[0].appAppleId, "environment": "sandbox",
          "apiKeyId": "KEY1", "apiIssuerId": "ISSUER", "apiPrivateKeyEnv": "SHARED_DB_APPLE_KEY",
          "apiBaseURL": sim.baseURL + "/sandbox", "rootCertificates": [dir.file("root.cer")],
        ]
      ],
      "googlePlay": [
        [
          "packageName": google.packageName, "serviceAccountKeyEnv": "SHARED_DB_GOOGLE_KEY",
          "apiBaseURL": sim.googleAPIBaseURL, "tokenURI": sim.googleTokenURI, "jwksURL": sim.googleJWKSURL,
          "pushAudience": google.effectivePushAudience ?? "", "pushServiceAccount": google.pushServiceAccount,
        ]
      ],
    ]
    do {
      try Data(sim.rootCertificate.der).write(to: URL(fileURLWithPath: dir.file("root.cer")))
      try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: dir.file("config.json")))
      let environment = [
        "SHARED_DB_APPLE_KEY": try key.pkcs8PEM(), "SHARED_DB_GOOGLE_KEY": sim.googleServiceAccountKeyJSON,
      ]
      return SharedDatabaseWorkers(dir: dir, sim: sim, notificationPort: port, environment: environment)
    } catch {
      await sim.stop()
      dir.remove()
      throw error
    }
  }

  /// Starts a worker (creating the database if it is missing) and waits until it listens; with
  /// `receivesNotifications`, on the port the simulator posts notifications to.
  func start(_ name: String, receivesNotifications: Bool = false) async throws -> LoggedWorker {
    try await LoggedWorker.start(
      name, config: config, in: dir, environment: environment,
      listen: receivesNotifications ? notificationPort : nil)
  }

  /// Opens the database the workers share, as the service and the admin commands do.
  func storage() throws -> (worker: SQLiteWorkerStorage, entitlements: SQLiteEntitlementStorage) {
    let now = sim.followedNowMs
    return (
      try SQLiteWorkerStorage(path: database, nowMs: now, create: false),
      try SQLiteEntitlementStorage(path: database, nowMs: now, create: false)
    )
  }

  func remove() async {
    await sim.stop()
    dir.remove()
  }
}
