import Foundation
import Testing
import TollgateTesting

/// `tollgate worker`'s edges as a process: its two listeners, and a config file it refuses.
@Suite("Worker edges")
struct WorkerEdgesEndToEndTests {
  @Test("notifications on the public listener only; /health and /metrics on the admin listener")
  func listeners() async throws {
    let workers = try await WorkerProcesses.make(prefix: "tollgate-edges")
    let (worker, port, adminPort) = try await workers.start()
    defer { worker.terminate() }
    #expect(port != adminPort)
    #expect(try await httpRequest("GET", port: port, path: "/health").status == 404)
    #expect(try await httpRequest("GET", port: port, path: "/metrics").status == 404)
    let health = try await httpRequest("GET", port: adminPort, path: "/health")
    #expect(health.status == 200)
    #expect(health.body.contains(#""status":"serving""#))
    let metrics = try await httpRequest("GET", port: adminPort, path: "/metrics")
    #expect(metrics.status == 200)
    #expect(metrics.body.contains("tollgate_"))
    // The notification routes are not on the admin listener.
    let body = Data(#"{"signedPayload":"x.y.z"}"#.utf8)
    #expect(try await httpRequest("POST", port: adminPort, path: "/notifications/apple/v2", body: body).status == 404)
    worker.terminate()
    _ = worker.finish()
    await workers.remove()
  }

  @Test("unknown keys, an out-of-range port and an unparsable address are refused, each naming its key")
  func strictConfig() async throws {
    let dir = try TemporaryDirectory(prefix: "tollgate-strict")
    defer { dir.remove() }
    let config = """
      {
        "apps": [{"id": "ios", "store": "app_store", "bundleId": "com.example.app"}],
        "entitlements": [{"id": "premium"}],
        "products": [{"productId": "monthly", "entitlements": ["premium"]}],
        "worker": {"listen": "127.0.0.1:99999", "adminListen": "nowhere", "listne": "127.0.0.1:7703",
                   "database": "\(dir.file("tollgate.sqlite"))"},
        "appStore": [{"bundleId": "com.example.app", "bundleID": "typo", "environment": "sandbox",
                      "apiKeyId": "K", "apiIssuerId": "I", "apiPrivateKeyEnv": "STRICT_TEST_KEY"}],
        "servcie": {}
      }
      """
    try Data(config.utf8).write(to: URL(fileURLWithPath: dir.file("config.json")))
    let refused = try await ChildProcess.runDetached(
      ["worker", "--config", dir.file("config.json")], environment: ["STRICT_TEST_KEY": "not a key"])
    #expect(refused.status != 0)
    for problem in [
      "worker.listne is not a known key", "appStore[0].bundleID is not a known key", "servcie is not a known key",
      #"worker.listen: "127.0.0.1:99999" is not an address to listen on"#,
      #"worker.adminListen: "nowhere" is not an address to listen on"#,
    ] {
      #expect(refused.stderr.contains(problem), "\(refused.stderr)")
    }
    #expect(!FileManager.default.fileExists(atPath: dir.file("tollgate.sqlite")), "the worker opened its database")
  }
}
