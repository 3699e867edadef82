import Foundation
import Logging
import StoreSimulator
import Testing
import TollgateCrypto
import TollgateTesting

/// A store simulator and `tollgate worker` processes that follow its clock and receive its
/// notifications on one fixed port, on one SQLite database: for tests that kill the worker.
struct CrashableWorker {
  let dir: TemporaryDirectory
  let sim: StoreSimulator
  let workerPort: Int
  let environment: [String: String?]
  var database: String { dir.file("tollgate.sqlite") }
  var config: String { dir.file("config.json") }

  static func make(prefix: String, notificationRetryDelaysMs: [Int64] = [200, 500]) async throws -> CrashableWorker {
    let dir = try TemporaryDirectory(prefix: prefix)
    let key = try P256PrivateKey.generate()
    let workerPort = try await Stack.freePort()
    var simConfig = StoreSimulator.Config.defaults
    simConfig.notificationRetryDelaysMs = notificationRetryDelaysMs
    simConfig.apple.apps[0].apiKey = .init(keyId: "KEY1", issuerId: "ISSUER", publicKeyPEM: try Stack.publicPEM(key))
    simConfig.apple.apps[0].notificationURL = "http://127.0.0.1:\(workerPort)/notifications/apple/v2"
    let sim = try await StoreSimulator.start(config: simConfig, logger: Logger(label: "crash.sim"))
    try Data(sim.rootCertificate.der).write(to: URL(fileURLWithPath: dir.file("root.cer")))
    let config: [String: Any] = [
      "apps": [["id": "ios", "store": "app_store", "bundleId": Stack.bundleId]],
      "entitlements": [["id": "premium"], ["id": "basic"]],
      "products": [["productId": Stack.premium, "store": "app_store", "entitlements": ["premium"]]],
      "worker": [
        "listen": "127.0.0.1:\(workerPort)", "database": dir.file("tollgate.sqlite"), "pollMs": 5,
        "backoffBaseMs": 50, "backoffMaxMs": 200, "leaseMs": 1_000, "followClockURL": sim.baseURL,
      ],
      "appStore": [
        [
          "bundleId": Stack.bundleId, "appAppleId": simConfig.apple.apps[0].appAppleId, "environment": "sandbox",
          "apiKeyId": "KEY1", "apiIssuerId": "ISSUER", "apiPrivateKeyEnv": "CRASH_TEST_KEY",
          "apiBaseURL": sim.baseURL + "/sandbox", "rootCertificates": [dir.file("root.cer")],
        ]
      ],
    ]
    try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: dir.file("config.json")))
    return CrashableWorker(
      dir: dir, sim: sim, workerPort: workerPort, environment: ["CRASH_TEST_KEY": try key.pkcs8PEM()])
  }

  /// Starts a worker process and waits until it listens.
  func start() async throws -> ChildProcess {
    let worker = try ChildProcess(["worker", "--config", config, "--log-level", "warning"], environment: environment)
    if await worker.waitForLine(containing: "notifications on") == nil {
      worker.terminate()
      Issue.record("the worker did not start: \(worker.finish().stderr)")
    }
    return worker
  }

  func remove() async {
    await sim.stop()
    dir.remove()
  }
}
