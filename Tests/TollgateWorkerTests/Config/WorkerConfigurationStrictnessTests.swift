import Foundation
import Logging
import Testing
import TollgateCore
import TollgateTesting
import TollgateWorker

@Suite("Worker configuration strictness")
struct WorkerConfigurationStrictnessTests {
  struct ExampleStoreSettings: StoreSettings, Decodable {
    static let sectionKey = "exampleStore"
    var apps: [App]
    var store: Store { .appStore }
    var isEmpty: Bool { apps.isEmpty }
    func problems(catalog: ProductCatalog, environment: [String: String]) -> [String] { [] }

    struct App: Decodable {
      var name: String
    }

    init(apps: [App]) {
      self.apps = apps
    }

    init(from decoder: any Decoder) throws {
      apps = try [App](from: decoder)
    }
  }

  private func problems(_ json: String) throws -> [String] {
    let configuration = try WorkerConfiguration.decode(
      Data(json.utf8), storeSections: [ExampleStoreSettings.self])
    let store = try ExampleStoreSettings.section(in: Data(json.utf8)) ?? ExampleStoreSettings(apps: [])
    return configuration.problems(environment: [:], stores: [store])
  }

  private static let apps = """
    "apps": [{"id": "ios", "store": "app_store", "bundleId": "com.example.app"}], "entitlements": [{"id": "premium"}]
    """
  private static let catalog = """
    \(apps), "products": [{"productId": "monthly", "entitlements": ["premium"]}], "exampleStore": [{"name": "a"}]
    """

  @Test("unknown keys in every section the worker reads are errors naming their full path")
  func unknownKeys() throws {
    let found = try problems(
      """
      {\(Self.apps), "worker": {"listne": "127.0.0.1:7703", "pollMs": 5},
       "webhooks": [{"url": "https://h.example", "secretEnv": "H", "secretEnvv": "x"}],
       "products": [{"productId": "monthly", "entitlements": ["premium"], "entitlement": "premium"}],
       "exampleStore": [{"name": "a", "nmae": "b"}], "service": {"listen": "127.0.0.1:7701"}, "wokrer": {}}
      """)
    #expect(found.contains("worker.listne is not a known key"))
    #expect(found.contains("webhooks[0].secretEnvv is not a known key"))
    #expect(found.contains("products[0].entitlement is not a known key"))
    #expect(found.contains("exampleStore[0].nmae is not a known key"))
    #expect(found.contains("wokrer is not a known key"))
    // The service section belongs to serve: the worker does not judge it.
    #expect(!found.contains { $0.hasPrefix("service") })
  }

  @Test("a file with only known keys has no key problems")
  func knownKeys() throws {
    let found = try problems(
      """
      {\(Self.catalog), "worker": {"listen": "0.0.0.0:7703", "adminListen": "127.0.0.1:7704", "idleTimeoutMs": 60000,
       "headerTimeoutMs": 10000, "maxNotificationBytes": 1048576}, "service": {"listen": "127.0.0.1:7701"}}
      """)
    #expect(found.isEmpty, "\(found)")
  }

  @Test(
    "out-of-range ports and unparsable addresses are errors naming the key",
    arguments: [
      (#""listen": "127.0.0.1:99999""#, "worker.listen: \"127.0.0.1:99999\""),
      (#""listen": "localhost""#, "worker.listen: \"localhost\""),
      (#""adminListen": "127.0.0.1:65536""#, "worker.adminListen: \"127.0.0.1:65536\""),
      (#""adminListen": "nowhere:http""#, "worker.adminListen: \"nowhere:http\""),
    ])
  func addresses(setting: String, problem: String) throws {
    let found = try problems(#"{\#(Self.catalog), "worker": {\#(setting)}}"#)
    #expect(found.contains { $0.hasPrefix(problem) }, "\(found)")
  }

  @Test("the limits of the HTTP listeners are checked")
  func limits() throws {
    let found = try problems(
      """
      {\(Self.catalog), "worker": {"listen": "127.0.0.1:7704", "idleTimeoutMs": 0, "headerTimeoutMs": 100000000,
       "maxNotificationBytes": 10}}
      """)
    #expect(found.contains("worker.adminListen: must differ from worker.listen (127.0.0.1:7704)"))
    #expect(found.contains { $0.hasPrefix("worker.idleTimeoutMs: must be between 100") })
    #expect(found.contains { $0.hasPrefix("worker.headerTimeoutMs: must be between 100") })
    #expect(found.contains { $0.hasPrefix("worker.maxNotificationBytes: must be between 1024") })
  }

  @Test("the worker refuses to build on a port out of range (it used to wrap 99999 to 34463)")
  func verifierRefuses() throws {
    var settings = WorkerSettings()
    settings.listen = "127.0.0.1:99999"
    #expect {
      try VerifierWorker(
        configuration: WorkerConfiguration(catalog: ProductCatalog(), worker: settings), storage: FakeWorkerStorage(),
        gateways: [], environment: [:], nowMs: { 1 }, logger: Logger(label: "test"))
    } throws: { error in
      "\(error)".contains("worker.listen: \"127.0.0.1:99999\" is not an address to listen on")
    }
  }
}
