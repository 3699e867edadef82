import Foundation
import Testing
import TollgateCore
import TollgateWorker

@Suite("Worker configuration")
struct WorkerConfigurationTests {
  /// A store section as a gateway module would define it.
  struct ExampleStoreSettings: StoreSettings, Decodable {
    static let sectionKey = "exampleStore"
    var apps: [String]
    var store: Store { .appStore }
    var isEmpty: Bool { apps.isEmpty }
    func problems(catalog: ProductCatalog, environment: [String: String]) -> [String] {
      apps.filter { $0.isEmpty }.map { _ in "exampleStore: an app has no name" }
    }
  }

  @Test("every problem is reported at once, with where it is, the store sections' included")
  func problems() throws {
    let json = """
      {
        "apps": [{"id": "ios", "store": "app_store", "bundleId": "com.example.app"}],
        "entitlements": [{"id": "premium"}],
        "products": [{"productId": "monthly", "entitlements": ["premium", "nope"]}],
        "worker": {"pollMs": 0},
        "webhooks": [{"url": "ftp://example.com", "secretEnv": "HOOK"}],
        "exampleStore": {"apps": ["ok", ""]}
      }
      """
    let data = Data(json.utf8)
    let configuration = try WorkerConfiguration.decode(data)
    let store = try #require(try ExampleStoreSettings.section(in: data))
    let text = configuration.problems(environment: [:], stores: [store]).joined(separator: "\n")
    #expect(text.contains("nope"))
    #expect(text.contains("worker.pollMs"))
    #expect(text.contains("webhooks[0]: url must be http(s)"))
    #expect(text.contains("$HOOK"))
    #expect(text.contains("exampleStore: an app has no name"))
    #expect(!text.contains("no store is configured"))
  }

  @Test("a worker with no store configured is refused, naming the sections it could have")
  func noStore() throws {
    let json = #"{"apps": [], "entitlements": [], "products": []}"#
    let data = Data(json.utf8)
    let configuration = try WorkerConfiguration.decode(data)
    #expect(try ExampleStoreSettings.section(in: data) == nil)
    let problems = configuration.problems(environment: [:], stores: [ExampleStoreSettings(apps: [])])
    #expect(problems == [#"no store is configured: add an app to one of "exampleStore""#])
  }

  @Test("a malformed store section names the field")
  func malformed() {
    let json = #"{"exampleStore": {"apps": [5]}}"#
    #expect {
      try ExampleStoreSettings.section(in: Data(json.utf8))
    } throws: { error in
      "\(error)".contains("exampleStore")
    }
  }
}
