import Foundation
import StoreSimulator
import Testing
import TollgateClient
import TollgateCrypto
import TollgateDemo
import TollgateTesting

/// A `tollgate serve` process beside a `LocalStack`, on its database and following its
/// simulator's clock, with two callers (`support`: admin; `app`: read and submit) and the App
/// Store's section in `--config`, so its admin calls can ask Apple about order ids.
struct SupportServe {
  static let supportKey = "tgk_support_0123456789abcdef"
  static let appKey = "tgk_app_fedcba9876543210"

  let process: ChildProcess
  let port: Int

  static func start(beside stack: LocalStack, in dir: TemporaryDirectory) async throws -> SupportServe {
    func hex(_ key: String) -> String { SHA256.hash(key).hexString }
    let config: [String: Any] = [
      "service": [
        "listen": "127.0.0.1:0", "database": stack.databasePath,
        "callers": [
          ["name": "support", "keySha256": hex(supportKey), "scopes": ["admin"]],
          ["name": "app", "keySha256": hex(appKey), "scopes": ["read", "submit"]],
        ],
      ],
      "appStore": [
        [
          "bundleId": LocalStack.bundleId, "appAppleId": StoreSimulator.Config.defaults.apple.apps[0].appAppleId,
          "environment": "sandbox", "apiKeyId": "DEMOKEY", "apiIssuerId": "DEMO-ISSUER",
          "apiPrivateKeyEnv": "TOLLGATE_DEMO_APPLE_KEY", "apiBaseURL": stack.sim.baseURL + "/sandbox",
          "sandboxAPIBaseURL": stack.sim.baseURL + "/sandbox", "rootCertificates": [dir.file("apple-root.cer")],
        ]
      ],
    ]
    let path = dir.file("serve-support.json")
    try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: path))
    let process = try ChildProcess(
      ["serve", "--config", path, "--follow-clock", stack.sim.baseURL, "--log-level", "warning"],
      environment: stack.storeEnvironment.mapValues { $0 })
    guard let line = await process.waitForLine(containing: "listening on"),
      let address = line.split(separator: " ").first(where: { $0.hasPrefix("127.0.0.1:") }),
      let port = Int(address.split(separator: ":")[1].trimmingCharacters(in: [","]))
    else {
      let ended = process.finish()
      Issue.record("serve did not start: \(ended.stderr)")
      throw CancellationError()
    }
    return SupportServe(process: process, port: port)
  }

  /// A client of this serve as `caller` (`support` or `app`).
  func client(_ caller: String) -> TollgateClient {
    var config = TollgateClient.Config.defaults
    config.connectTimeout = .seconds(3)
    config.callTimeout = .seconds(10)
    config.credentials = .init(caller: caller, key: caller == "support" ? Self.supportKey : Self.appKey)
    return TollgateClient(host: "127.0.0.1", port: port, config: config)
  }

  func stop() {
    process.terminate()
    _ = process.finish()
  }
}

/// The code of the `TollgateClientError` `body` throws; nil when it does not throw.
func clientErrorCode(_ body: () async throws -> Void) async -> TollgateClientError.Code? {
  do {
    try await body()
    return nil
  } catch let error as TollgateClientError {
    return error.code
  } catch {
    Issue.record("not a client error: \(error)")
    return nil
  }
}
