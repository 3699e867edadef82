import Foundation
import Logging
import StoreSimulator
import Testing
import TollgateCrypto
import TollgateTesting

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `tollgate worker` processes on one SQLite database in a temporary directory, configured against
/// an in-process store simulator. Each listens on a port of its own; with `receivingNotifications`,
/// on one fixed port the simulator posts its notifications to, following the simulator's clock
/// (for tests that kill and restart the worker while the store goes on).
struct WorkerProcesses {
  let dir: TemporaryDirectory
  let sim: StoreSimulator
  let environment: [String: String?]
  var database: String { dir.file("tollgate.sqlite") }
  var config: String { dir.file("config.json") }

  /// - Parameter workerSettings: keys of the `worker` section to set (or override).
  static func make(
    prefix: String = "tollgate-workers", receivingNotifications: Bool = false, workerSettings: [String: Any] = [:]
  ) async throws -> WorkerProcesses {
    let dir = try TemporaryDirectory(prefix: prefix)
    let key = try P256PrivateKey.generate()
    var simConfig = StoreSimulator.Config.defaults
    simConfig.apple.apps[0].apiKey = .init(keyId: "KEY1", issuerId: "ISSUER", publicKeyPEM: try Stack.publicPEM(key))
    var worker: [String: Any] = [
      "listen": "127.0.0.1:0", "adminListen": "127.0.0.1:0", "database": dir.file("tollgate.sqlite"), "pollMs": 20,
    ]
    if receivingNotifications {
      let port = try await Stack.freePort()
      simConfig.notificationRetryDelaysMs = [200, 500]
      simConfig.apple.apps[0].notificationURL = "http://127.0.0.1:\(port)/notifications/apple/v2"
      worker.merge(
        [
          "listen": "127.0.0.1:\(port)", "pollMs": 5, "backoffBaseMs": 50, "backoffMaxMs": 200, "leaseMs": 1_000,
          // The soak audits every acknowledged notification in the inbox over simulated years:
          // housekeeping must not prune them first.
          "inboxRetentionMs": 3_650 * 86_400_000,
        ]
      ) { $1 }
    }
    let sim = try await StoreSimulator.start(config: simConfig, logger: Logger(label: "workers.sim"))
    if receivingNotifications { worker["followClockURL"] = sim.baseURL }
    worker.merge(workerSettings) { $1 }
    try Data(sim.rootCertificate.der).write(to: URL(fileURLWithPath: dir.file("root.cer")))
    let config: [String: Any] = [
      "apps": [["id": "ios", "store": "app_store", "bundleId": Stack.bundleId]],
      "entitlements": [["id": "premium"]],
      "products": [["productId": Stack.premium, "store": "app_store", "entitlements": ["premium"]]],
      "worker": worker,
      "appStore": [
        [
          "bundleId": Stack.bundleId, "appAppleId": simConfig.apple.apps[0].appAppleId, "environment": "sandbox",
          "apiKeyId": "KEY1", "apiIssuerId": "ISSUER", "apiPrivateKeyEnv": "WORKERS_TEST_KEY",
          "apiBaseURL": sim.baseURL + "/sandbox", "rootCertificates": [dir.file("root.cer")],
        ]
      ],
    ]
    try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: dir.file("config.json")))
    return WorkerProcesses(dir: dir, sim: sim, environment: ["WORKERS_TEST_KEY": try key.pkcs8PEM()])
  }

  /// Starts a worker process (it may refuse to start: see `finish()`), with `--create` unless
  /// `create` is false (then the database must exist).
  func launch(create: Bool = true, arguments: [String] = []) throws -> ChildProcess {
    try ChildProcess(
      ["worker", "--config", config, "--log-level", "warning"] + (create ? ["--create"] : []) + arguments,
      environment: environment)
  }

  /// Starts a worker and waits until it listens; returns it with its notification port and its
  /// admin port (`/health`, `/metrics`).
  func start(create: Bool = true) async throws -> (process: ChildProcess, port: Int, adminPort: Int) {
    let worker = try launch(create: create)
    guard let line = await worker.waitForLine(containing: "notifications on") else {
      worker.terminate()
      throw WorkerDidNotStart(stderr: worker.finish().stderr)
    }
    let ports = try WorkerProcesses.ports(announcedIn: line)
    return (worker, ports.port, ports.adminPort)
  }

  /// The ports in the worker's line `notifications on HOST:PORT, health and metrics on HOST:PORT, …`.
  static func ports(announcedIn line: String) throws -> (port: Int, adminPort: Int) {
    let ports = line.split(separator: " ").filter { $0.hasPrefix("127.0.0.1:") }.compactMap {
      Int($0.split(separator: ":")[1].trimmingCharacters(in: [","]))
    }
    guard ports.count == 2 else { throw WorkerDidNotStart(stderr: "no ports in: \(line)") }
    return (ports[0], ports[1])
  }

  func remove() async {
    await sim.stop()
    dir.remove()
  }
}

struct WorkerDidNotStart: Error, CustomStringConvertible {
  var stderr: String
  var description: String { "the worker did not start: \(stderr)" }
}

/// One HTTP request to a worker: its status and body.
func httpRequest(
  _ method: String, port: Int, path: String, body: Data = Data(), headers: [String: String] = [:]
) async throws -> (status: Int, body: String) {
  var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
  request.httpMethod = method
  for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
  if !body.isEmpty { request.httpBody = body }
  let (data, response) = try await URLSession.shared.data(for: request)
  return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
}
