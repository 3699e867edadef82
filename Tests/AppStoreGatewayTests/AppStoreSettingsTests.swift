import AppStoreGateway
import Foundation
import Testing
import TollgateWorker

@Suite("The appStore section of the worker's config")
struct AppStoreSettingsTests {
  @Test("every problem is reported at once, with where it is")
  func problems() throws {
    let json = """
      {
        "apps": [{"id": "ios", "store": "app_store", "bundleId": "com.example.app"}],
        "entitlements": [{"id": "premium"}],
        "products": [{"productId": "monthly", "entitlements": ["premium"]}],
        "appStore": [
          {"bundleId": "com.example.app", "environment": "production", "apiKeyId": "K", "apiIssuerId": "I",
           "apiPrivateKeyEnv": "MISSING_KEY"},
          {"bundleId": "com.other", "environment": "staging"}
        ]
      }
      """
    let data = Data(json.utf8)
    let configuration = try WorkerConfiguration.decode(data)
    let settings = try #require(try AppStoreSettings.section(in: data))
    let text = configuration.problems(environment: [:], stores: [settings]).joined(separator: "\n")
    #expect(text.contains("appStore[0] (com.example.app): appAppleId is required in production"))
    #expect(text.contains("$MISSING_KEY"))
    #expect(text.contains("appStore[1] (com.other): environment must be"))
    #expect(text.contains("appStore[1]: bundle id com.other is not among"))
    #expect(!text.contains("no store is configured"))
  }

  @Test("a malformed app names the field")
  func malformed() {
    let json = #"{"appStore": [{"bundleId": 5}]}"#
    #expect {
      try AppStoreSettings.section(in: Data(json.utf8))
    } throws: { error in
      "\(error)".contains("bundleId")
    }
  }

  @Test("an empty appStore section configures no store")
  func empty() throws {
    let json = #"{"apps": [], "entitlements": [], "products": [], "appStore": []}"#
    let data = Data(json.utf8)
    let settings = try #require(try AppStoreSettings.section(in: data))
    let problems = try WorkerConfiguration.decode(data).problems(environment: [:], stores: [settings])
    #expect(problems == [#"no store is configured: add an app to one of "appStore""#])
  }

  @Test("a complete sandbox configuration has no problems")
  func valid() throws {
    let json = """
      {
        "apps": [{"id": "ios", "store": "app_store", "bundleId": "com.example.app"}],
        "entitlements": [{"id": "premium"}],
        "products": [{"productId": "monthly", "entitlements": ["premium"]}],
        "appStore": [{"bundleId": "com.example.app", "environment": "sandbox", "apiKeyId": "K", "apiIssuerId": "I",
                      "apiPrivateKeyEnv": "KEY"}]
      }
      """
    let data = Data(json.utf8)
    let settings = try #require(try AppStoreSettings.section(in: data))
    let problems = try WorkerConfiguration.decode(data).problems(
      environment: ["KEY": "-----BEGIN PRIVATE KEY-----"], stores: [settings])
    #expect(problems == [])
  }

  @Test(
    "requestTimeoutMs is read, and refused outside 100 ms ... 5 min",
    arguments: [(50, false), (60_000, true), (400_000, false)])
  func requestTimeout(ms: Int, valid: Bool) throws {
    let json = """
      {
        "apps": [{"id": "ios", "store": "app_store", "bundleId": "com.example.app"}],
        "appStore": [{"bundleId": "com.example.app", "environment": "sandbox", "apiKeyId": "K", "apiIssuerId": "I",
                      "apiPrivateKeyEnv": "KEY", "requestTimeoutMs": \(ms)}]
      }
      """
    let data = Data(json.utf8)
    let settings = try #require(try AppStoreSettings.section(in: data))
    #expect(settings.apps.first?.requestTimeoutMs == Int64(ms))
    let problems = try WorkerConfiguration.decode(data).problems(
      environment: ["KEY": "-----BEGIN PRIVATE KEY-----"], stores: [settings])
    #expect(problems.contains { $0.contains("requestTimeoutMs") } == !valid, "\(problems)")
  }
}

@Suite("The example config in the repo")
struct ExampleConfigTests {
  @Test("config/tollgate.example.json decodes and is valid once its secrets are in the environment")
  func example() throws {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../config/tollgate.example.json").standardized.path
    let data = try #require(FileManager.default.contents(atPath: path))
    let configuration = try WorkerConfiguration.decode(data)
    let appStore = try #require(try AppStoreSettings.section(in: data))
    #expect(
      configuration.catalog.entitlements(forProduct: "premium_yearly", store: .appStore) == ["premium", "offline"])
    #expect(appStore.apps.first?.allowSandbox == true)
    let secrets = [
      "TOLLGATE_APPLE_API_KEY": "-----BEGIN PRIVATE KEY-----", "TOLLGATE_APPLE_SHARED_SECRET": "s",
      "TOLLGATE_WEBHOOK_SECRET": "w",
    ]
    #expect(configuration.problems(environment: secrets, stores: [appStore]) == [])
    #expect(configuration.webhooks.first?.maxAttempts == 12)
    #expect(configuration.problems(environment: [:], stores: [appStore]).count == 3)
  }
}
