import Foundation
import Testing
import TollgateContract
import TollgateCrypto
import TollgateTesting

/// `tollgate --version`, `tollgate config check` and secrets read from files (issue 29), as
/// processes: the exit codes scripts and systemd see, every problem of a file at once.
@Suite("tollgate config check, --version and secrets from files, as processes", .serialized)
struct ConfigCheckEndToEndTests {
  /// A file with problems in every section: serve's and the worker's values, unknown keys,
  /// unknown enum-like values and secrets that cannot be read.
  static func badConfig(in dir: TemporaryDirectory) -> [String: Any] {
    [
      "apps": [["id": "ios", "store": "app_store", "bundleId": "com.example.app"]],
      "entitlements": [["id": "premium"]],
      "products": [["productId": "monthly", "entitlements": ["premium"]]],
      "worker": [
        "listen": "127.0.0.1:99999", "listne": "x", "storeRequestsPerMinute": ["appstore": 5],
        "database": dir.file("tollgate.sqlite"),
      ],
      "webhooks": [
        ["url": "https://hooks.example.com/a", "secretEnv": "CONFIG_CHECK_UNSET", "events": ["renewd"]],
        ["url": "https://hooks.example.com/b", "secretEnv": "CONFIG_CHECK_HOOK", "secretFile": "hook-secret"],
      ],
      "appStore": [
        [
          "bundleId": "com.example.app", "environment": "sandbox", "apiKeyId": "K", "apiIssuerId": "I",
          "apiPrivateKeyFile": "missing.p8",
        ]
      ],
      "service": [
        "listen": "nowhere", "maxConnections": 0, "database": dir.file("tollgate.sqlite"),
        "callers": [["name": "web", "keySha256": String(repeating: "a", count: 64), "scopes": ["write"]]],
        "grpc": ["maxConcurrentStreams": 0],
        "http": [
          "listen": "127.0.0.1:0",
          "tls": ["certificateFile": dir.file("missing.pem"), "privateKeyFile": dir.file("missing.key")],
        ],
      ],
      "servcie": [:],
    ]
  }

  static let serveProblems = [
    "service.listen must be HOST:PORT", "service.maxConnections must be between", "unknown scope \"write\"",
    "service.grpc.maxConcurrentStreams must be between", "servcie is not a known key",
    "service.http.tls.certificateFile",
  ]

  static let workerProblems = [
    "worker.listne is not a known key", #"worker.listen: "127.0.0.1:99999" is not an address to listen on"#,
    "worker.storeRequestsPerMinute.appstore: not a store", #"webhooks[0]: events: "renewd" is not an event kind"#,
    "webhooks[0]: secretEnv names $CONFIG_CHECK_UNSET, which is not set",
    "webhooks[1]: secretEnv and secretFile are both set: keep one",
    "appStore[0] (com.example.app): apiPrivateKeyFile: missing.p8 cannot be read", "servcie is not a known key",
  ]

  @Test("config check prints every problem of every section at once and exits 78; a valid file exits 0")
  func everyProblemAtOnce() async throws {
    let dir = try TemporaryDirectory(prefix: "tollgate-config-check")
    defer { dir.remove() }
    let config = dir.file("bad.json")
    try JSONSerialization.data(withJSONObject: Self.badConfig(in: dir)).write(to: URL(fileURLWithPath: config))
    let environment: [String: String?] = ["CONFIG_CHECK_HOOK": "s", "CONFIG_CHECK_UNSET": nil]
    let checked = try await ChildProcess.runDetached(["config", "check", config], environment: environment)
    #expect(checked.status == 78, "\(checked.stderr)")
    for problem in Self.serveProblems + Self.workerProblems {
      #expect(checked.stderr.contains(problem), "missing \(problem): \(checked.stderr)")
    }
    #expect(checked.stderr.components(separatedBy: "servcie is not a known key").count == 2, "said once")

    // The commands refuse the same file with the same code, each with every problem of its sections.
    let serve = try await ChildProcess.runDetached(["serve", "--config", config, "--create"], environment: environment)
    #expect(serve.status == 78, "\(serve.stderr)")
    for problem in Self.serveProblems { #expect(serve.stderr.contains(problem), "serve: \(problem): \(serve.stderr)") }
    let worker = try await ChildProcess.runDetached(
      ["worker", "--config", config, "--create"], environment: environment)
    #expect(worker.status == 78, "\(worker.stderr)")
    for problem in Self.workerProblems {
      #expect(worker.stderr.contains(problem), "worker: \(problem): \(worker.stderr)")
    }
    #expect(!FileManager.default.fileExists(atPath: dir.file("tollgate.sqlite")), "nothing started")

    // Fixed: valid for both commands.
    let good = dir.file("good.json")
    try Data("s3cret\n".utf8).write(to: URL(fileURLWithPath: dir.file("hook-secret")))
    let valid: [String: Any] = [
      "apps": [["id": "ios", "store": "app_store", "bundleId": "com.example.app"]],
      "entitlements": [["id": "premium"]],
      "products": [["productId": "monthly", "entitlements": ["premium"]]],
      "webhooks": [["url": "https://hooks.example.com/b", "secretFile": "hook-secret", "events": ["renewed"]]],
      "appStore": [
        [
          "bundleId": "com.example.app", "environment": "sandbox", "apiKeyId": "K", "apiIssuerId": "I",
          "apiPrivateKeyEnv": "CONFIG_CHECK_HOOK",
        ]
      ],
      "service": ["listen": "127.0.0.1:0", "database": dir.file("tollgate.sqlite")],
    ]
    try JSONSerialization.data(withJSONObject: valid).write(to: URL(fileURLWithPath: good))
    let fine = try await ChildProcess.runDetached(
      ["config", "check", good], environment: ["CONFIG_CHECK_HOOK": "k", "CREDENTIALS_DIRECTORY": dir.path])
    #expect(fine.status == 0, "\(fine.stderr)")
    #expect(fine.stdout.contains("valid for serve and worker"), "\(fine.stdout)")
    // The same file where the credentials directory is not set: the relative secret file is not found.
    let elsewhere = try await ChildProcess.runDetached(
      ["config", "check", good], environment: ["CONFIG_CHECK_HOOK": "k", "CREDENTIALS_DIRECTORY": nil])
    #expect(elsewhere.status == 78)
    #expect(elsewhere.stderr.contains("webhooks[0]: secretFile: hook-secret cannot be read"), "\(elsewhere.stderr)")

    // Not JSON, and no file at all: 78 too; bad usage stays 2.
    try Data("{".utf8).write(to: URL(fileURLWithPath: dir.file("broken.json")))
    let broken = try await ChildProcess.runDetached(["config", "check", dir.file("broken.json")])
    #expect(broken.status == 78 && broken.stderr.contains("not JSON"), "\(broken.stderr)")
    #expect(try await ChildProcess.runDetached(["config", "check", dir.file("none.json")]).status == 78)
    #expect(try await ChildProcess.runDetached(["config", "check"]).status == 2)
  }

  @Test("tollgate --version prints the version Health answers")
  func version() async throws {
    let printed = try await ChildProcess.runDetached(["--version"])
    #expect(printed.status == 0)
    #expect(printed.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == TollgateVersion.current)

    let dir = try TemporaryDirectory(prefix: "tollgate-version")
    defer { dir.remove() }
    let serve = try ChildProcess([
      "serve", "--listen", "127.0.0.1:0", "--database", dir.file("tollgate.sqlite"), "--create", "--log-level",
      "warning",
    ])
    defer { serve.terminate() }
    let line = try #require(await serve.waitForLine(containing: "listening on"), "serve did not start")
    let address = try #require(
      line.split(separator: " ").first { $0.hasPrefix("127.0.0.1:") }.map { $0.trimmingCharacters(in: [","]) })
    let health = try await ChildProcess.runDetached(["query", "health", "--server", address, "--json"])
    let object = try #require(try JSONSerialization.jsonObject(with: Data(health.stdout.utf8)) as? [String: Any])
    #expect(object["version"] as? String == TollgateVersion.current, "\(health.stdout)")
  }

  @Test("a webhook secret from a file under $CREDENTIALS_DIRECTORY signs what tollgate webhooks test sends")
  func secretFromFile() async throws {
    let receiver = try await WebhookReceiver.start()
    let dir = try TemporaryDirectory(prefix: "tollgate-secret-file")
    defer { dir.remove() }
    let credentials = dir.file("credentials")
    try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: true)
    // As `echo` writes it: the line break is not part of the secret.
    try Data("file-s3cret\n".utf8).write(to: URL(fileURLWithPath: credentials + "/hook-secret"))
    let config = dir.file("tollgate.json")
    let file: [String: Any] = ["webhooks": [["url": receiver.url, "secretFile": "hook-secret"]]]
    try JSONSerialization.data(withJSONObject: file).write(to: URL(fileURLWithPath: config))
    do {
      let sent = try await ChildProcess.runDetached(
        ["webhooks", "test", "--endpoint", receiver.url, "--config", config],
        environment: ["CREDENTIALS_DIRECTORY": credentials])
      #expect(sent.status == 0, "\(sent.stdout) \(sent.stderr)")
      let delivery = try #require(receiver.recorded.first)
      #expect(signature(of: delivery, verifiesWith: "file-s3cret"), "signed with the file's secret")
      #expect(!signature(of: delivery, verifiesWith: "file-s3cret\n"))
      #expect(!sent.stdout.contains("file-s3cret") && !sent.stderr.contains("file-s3cret"), "never printed")
    } catch {
      await receiver.stop()
      throw error
    }
    await receiver.stop()
  }
}

/// Whether `delivery`'s `Tollgate-Signature` is the HMAC-SHA256 of its timestamp and body under `secret`.
private func signature(of delivery: WebhookReceiver.Delivery, verifiesWith secret: String) -> Bool {
  guard let header = delivery.headers["tollgate-signature"] else { return false }
  var parts: [String: String] = [:]
  for part in header.split(separator: ",") {
    let pair = part.split(separator: "=", maxSplits: 1)
    if pair.count == 2 { parts[String(pair[0])] = String(pair[1]) }
  }
  guard let t = parts["t"], let v1 = parts["v1"] else { return false }
  let mac = HMACSHA256.authenticationCode(for: Array("\(t).".utf8) + delivery.body, key: Array(secret.utf8))
  return v1 == mac.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}
