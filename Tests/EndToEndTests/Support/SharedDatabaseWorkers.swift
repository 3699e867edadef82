import Foundation
import Logging
import StoreSimulator
import TollgateCore
import TollgateCrypto
import TollgateSQLite
import TollgateTesting
import TollgateWorkerSQLite

#if canImport(Glibc)
  import Glibc
#endif

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
    var arguments = ["worker", "--config", config, "--create", "--log-level", "info"]
    if receivesNotifications { arguments += ["--listen", "127.0.0.1:\(notificationPort)"] }
    let worker = try LoggedWorker(
      name: name, arguments: arguments, environment: environment, output: dir.file("\(name).out"),
      log: dir.file("\(name).log"))
    let deadline = ContinuousClock.now + .seconds(20)
    while !worker.output.contains("notifications on") {
      guard worker.process.isRunning, ContinuousClock.now < deadline else {
        _ = await worker.stop()
        throw WorkerDidNotStart(stderr: worker.log)
      }
      try await Task.sleep(for: .milliseconds(20))
    }
    return worker
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

/// A `tollgate worker` process whose standard output and error (its log) go to files, read at
/// any time without a pipe to drain. `TOLLGATE_E2E_WORKER` names another `tollgate` binary to
/// run instead of the one built beside the tests (to show what a test catches in an older build).
final class LoggedWorker: Sendable {
  let name: String
  let process: SpawnedProcess
  let outputPath: String
  let logPath: String

  init(name: String, arguments: [String], environment: [String: String], output: String, log: String) throws {
    self.name = name
    outputPath = output
    logPath = log
    for path in [output, log] { _ = FileManager.default.createFile(atPath: path, contents: nil) }
    let out = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
    let err = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
    defer {
      try? out.close()
      try? err.close()
    }
    process = try SpawnedProcess(
      executable: ProcessInfo.processInfo.environment["TOLLGATE_E2E_WORKER"] ?? ChildProcess.tollgateExecutable,
      arguments: arguments,
      environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }, stdout: out, stderr: err)
  }

  var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
  var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

  /// How many lines of its log contain `marker`.
  func count(_ marker: String) -> Int {
    log.split(separator: "\n").count { $0.contains(marker) }
  }

  /// Stops it (SIGCONT first, should a test have left it stopped; then SIGTERM, and SIGKILL after
  /// 10 s) and returns its exit status; waits off the cooperative pool.
  @discardableResult
  func stop() async -> Int32 {
    let process = self.process
    guard process.isRunning else { return process.terminationStatus }
    kill(process.processIdentifier, SIGCONT)
    process.terminate()
    let deadline = ContinuousClock.now + .seconds(10)
    while process.isRunning && ContinuousClock.now < deadline {
      try? await Task.sleep(for: .milliseconds(20))
    }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    return await withCheckedContinuation { continuation in
      DispatchQueue.global().async { continuation.resume(returning: process.terminationStatus) }
    }
  }
}
