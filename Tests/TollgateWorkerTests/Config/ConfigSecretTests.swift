import Foundation
import Testing
import TollgateTesting
import TollgateWorker

/// Every secret from an environment variable or a file, one mechanism (issue 29): exactly one of
/// the pair, relative files under `$CREDENTIALS_DIRECTORY`, and no secret in any message.
@Suite("Config secrets: …Env or …File")
struct ConfigSecretTests {
  static func write(_ text: String, to path: String) throws {
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
  }

  @Test("from the environment, or from a file without its trailing line breaks")
  func sources() throws {
    let dir = try TemporaryDirectory(prefix: "tollgate-secret")
    defer { dir.remove() }
    try Self.write("from-file\r\n\n", to: dir.file("secret"))
    let fromEnv = ConfigSecret(key: "secret", env: "HOOK", file: nil)
    #expect(try fromEnv.value(environment: ["HOOK": "from-env"]) == "from-env")
    let fromFile = ConfigSecret(key: "secret", env: nil, file: dir.file("secret"))
    #expect(try fromFile.value(environment: [:]) == "from-file")
    #expect(fromFile.problem(environment: [:], required: true) == nil)
  }

  @Test("a relative file is read from $CREDENTIALS_DIRECTORY when set (systemd LoadCredential=); an absolute one as is")
  func credentialsDirectory() throws {
    let dir = try TemporaryDirectory(prefix: "tollgate-credentials")
    defer { dir.remove() }
    try Self.write("loaded", to: dir.file("hook"))
    let relative = ConfigSecret(key: "secret", env: nil, file: "hook")
    #expect(try relative.value(environment: ["CREDENTIALS_DIRECTORY": dir.path]) == "loaded")
    #expect(
      ConfigSecret.path("hook", environment: ["CREDENTIALS_DIRECTORY": "/run/credentials/x/"])
        == "/run/credentials/x/hook")
    #expect(ConfigSecret.path("/etc/hook", environment: ["CREDENTIALS_DIRECTORY": "/run/credentials/x"]) == "/etc/hook")
    #expect(ConfigSecret.path("hook", environment: [:]) == "hook")
    #expect(throws: ConfigSecretError.unreadable(key: "secret", path: "hook")) {
      try relative.value(environment: [:])
    }
  }

  @Test("exactly one of the pair; each problem names its key and never the secret")
  func problems() throws {
    let dir = try TemporaryDirectory(prefix: "tollgate-secret")
    defer { dir.remove() }
    try Self.write("\n", to: dir.file("empty"))
    let cases: [(ConfigSecret, [String: String], String)] = [
      (ConfigSecret(key: "sharedSecret", env: nil, file: nil), [:], "sharedSecretEnv or sharedSecretFile is required"),
      (
        ConfigSecret(key: "sharedSecret", env: "S", file: dir.file("empty")), ["S": "hunter2"],
        "sharedSecretEnv and sharedSecretFile are both set: keep one"
      ),
      (ConfigSecret(key: "secret", env: "S", file: nil), ["S": ""], "secretEnv names $S, which is not set"),
      (
        ConfigSecret(key: "apiPrivateKey", env: nil, file: dir.file("none")), [:],
        "apiPrivateKeyFile: \(dir.file("none")) cannot be read"
      ),
      (
        ConfigSecret(key: "serviceAccountKey", env: nil, file: dir.file("empty")), [:],
        "serviceAccountKeyFile: \(dir.file("empty")) is empty"
      ),
    ]
    for (secret, environment, expected) in cases {
      #expect(secret.problem(environment: environment, required: true) == expected)
      #expect(!expected.contains("hunter2"))
    }
    // Optional and absent: no problem, no value; optional and given, it must be readable.
    let absent = ConfigSecret(key: "sharedSecret", env: nil, file: nil)
    #expect(absent.problem(environment: [:], required: false) == nil)
    #expect(try absent.optionalValue(environment: [:]) == nil)
    #expect(ConfigSecret(key: "sharedSecret", env: "S", file: nil).problem(environment: [:], required: false) != nil)
  }

  @Test("webhooks: secretEnv or secretFile, exactly one, checked with the rest of the file")
  func webhookPair() throws {
    let dir = try TemporaryDirectory(prefix: "tollgate-secret")
    defer { dir.remove() }
    try Self.write("s3cret\n", to: dir.file("hook"))
    func problems(_ webhook: String) throws -> [String] {
      let json = #"{"webhooks": [\#(webhook)]}"#
      return try WorkerConfiguration.decode(Data(json.utf8)).problems(environment: ["HOOK": "s"], stores: [])
        .filter { $0.hasPrefix("webhooks") }
    }
    #expect(try problems(#"{"url": "https://h.example", "secretFile": "\#(dir.file("hook"))"}"#) == [])
    #expect(
      try problems(#"{"url": "https://h.example", "secretEnv": "HOOK", "secretFile": "\#(dir.file("hook"))"}"#)
        == ["webhooks[0]: secretEnv and secretFile are both set: keep one"])
    #expect(try problems(#"{"url": "https://h.example"}"#) == ["webhooks[0]: secretEnv or secretFile is required"])
    let webhook = WebhookSettings(url: "https://h.example", secretFile: dir.file("hook"))
    #expect(try webhook.secret.value(environment: [:]) == "s3cret")
  }
}
