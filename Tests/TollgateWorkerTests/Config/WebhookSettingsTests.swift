import Foundation
import Testing
import TollgateWorker

/// A webhook's own settings (issue 24 item 12): the kinds its filter names and its retry limit.
@Suite("Webhook settings")
struct WebhookSettingsTests {
  static func problems(_ webhook: String) throws -> [String] {
    let json = """
      {
        "apps": [{"id": "ios", "store": "app_store", "bundleId": "com.example.app"}],
        "entitlements": [{"id": "premium"}],
        "products": [{"productId": "monthly", "entitlements": ["premium"]}],
        "webhooks": [\(webhook)]
      }
      """
    let configuration = try WorkerConfiguration.decode(Data(json.utf8))
    return configuration.problems(environment: ["HOOK": "s"], stores: []).filter { $0.hasPrefix("webhooks") }
  }

  @Test("an event kind the worker never emits is a config error naming it; every kind it emits is accepted")
  func unknownKind() throws {
    let problems = try Self.problems(
      #"{"url": "https://h.example.com", "secretEnv": "HOOK", "events": ["purchased", "purchase", "renewd"]}"#)
    #expect(problems.count == 2, "\(problems)")
    #expect(
      problems.first?.hasPrefix(#"webhooks[0]: events: "purchase" is not an event kind (known: purchased"#) == true)
    #expect(problems.last?.hasPrefix(#"webhooks[0]: events: "renewd" is not an event kind"#) == true)
    let all = WorkerEvent.kinds.map { "\"\($0)\"" }.joined(separator: ", ")
    #expect(try Self.problems(#"{"url": "https://h.example.com", "secretEnv": "HOOK", "events": [\#(all)]}"#) == [])
  }

  @Test("the retry limit: defaults, read from the file, and checked")
  func retryLimit() throws {
    let defaults = WebhookSettings(url: "https://h.example.com", secretEnv: "HOOK")
    #expect(defaults.retryLimit == WebhookRetryLimit(maxAttempts: 12, maxAgeMs: 86_400_000))
    let json =
      #"{"webhooks": [{"url": "https://h.example.com", "secretEnv": "HOOK", "maxAttempts": 5, "maxAgeMs": 60000}]}"#
    struct Sections: Decodable { var webhooks: [WebhookSettings] }
    let read = try JSONDecoder().decode(Sections.self, from: Data(json.utf8)).webhooks[0]
    #expect(read.retryLimit == WebhookRetryLimit(maxAttempts: 5, maxAgeMs: 60_000))
    let problems = try Self.problems(
      #"{"url": "https://h.example.com", "secretEnv": "HOOK", "maxAttempts": 0, "maxAgeMs": 10}"#)
    #expect(problems == ["webhooks[0]: maxAttempts must be at least 1", "webhooks[0]: maxAgeMs must be at least 1000"])
  }

  @Test("metrics and /health name an endpoint without the user, password or query its url may carry")
  func displayName() {
    let webhook = WebhookSettings(url: "https://user:pw@hooks.example.com:8443/in?token=abc#x", secretEnv: "HOOK")
    #expect(webhook.displayName == "https://hooks.example.com:8443/in")
  }
}
