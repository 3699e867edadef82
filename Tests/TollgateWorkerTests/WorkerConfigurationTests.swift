import Foundation
import Testing
import TollgateWorker

@Suite("Worker configuration")
struct WorkerConfigurationTests {
  @Test("every problem is reported at once, with where it is")
  func problems() throws {
    let json = """
      {
        "apps": [{"id": "ios", "store": "app_store", "bundleId": "com.example.app"}],
        "entitlements": [{"id": "premium"}],
        "products": [{"productId": "monthly", "entitlements": ["premium", "nope"]}],
        "worker": {"pollMs": 0},
        "appStore": [
          {"bundleId": "com.example.app", "environment": "production", "apiKeyId": "K", "apiIssuerId": "I",
           "apiPrivateKeyEnv": "MISSING_KEY"},
          {"bundleId": "com.other", "environment": "staging"}
        ]
      }
      """
    let configuration = try WorkerConfiguration.decode(Data(json.utf8))
    let problems = configuration.problems(environment: [:])
    let text = problems.joined(separator: "\n")
    #expect(text.contains("nope"))
    #expect(text.contains("appAppleId is required in production"))
    #expect(text.contains("$MISSING_KEY"))
    #expect(text.contains("environment must be"))
    #expect(text.contains("com.other is not among"))
    #expect(text.contains("worker: pollMs"))
  }

  @Test("a malformed file names the field")
  func malformed() {
    let json = #"{"appStore": [{"bundleId": 5}]}"#
    #expect {
      try WorkerConfiguration.decode(Data(json.utf8))
    } throws: { error in
      "\(error)".contains("bundleId")
    }
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
    let configuration = try WorkerConfiguration.decode(Data(json.utf8))
    #expect(configuration.problems(environment: ["KEY": "-----BEGIN PRIVATE KEY-----"]) == [])
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
    #expect(
      configuration.catalog.entitlements(forProduct: "premium_yearly", store: .appStore) == ["premium", "offline"])
    #expect(configuration.appStore.first?.allowSandbox == true)
    let secrets = ["TOLLGATE_APPLE_API_KEY": "-----BEGIN PRIVATE KEY-----", "TOLLGATE_APPLE_SHARED_SECRET": "s"]
    #expect(configuration.problems(environment: secrets) == [])
    #expect(configuration.problems(environment: [:]).count == 2)
  }
}
