import Foundation
import Testing
import TollgateCore
import TollgateWorker

@Suite("Config keys")
struct ConfigKeysTests {
  struct Section: Decodable {
    var listen: String?
    var limits: Limits?
    var hooks: [Hook]?
    var tags: [String: Int]?

    struct Limits: Decodable {
      var maxBytes: Int?
    }

    struct Hook: Decodable {
      var url: String
    }
  }

  private func problems(_ json: String, read: (ConfigKeys) -> Void) throws -> [String] {
    let keys = try ConfigKeys(json: Data(json.utf8))
    read(keys)
    return keys.problems
  }

  @Test("a key no type reads is named with its full path, at any depth and in arrays")
  func unknownKeys() throws {
    let json = """
      {"worker": {"listne": "x", "limits": {"maxBytes": 1, "maxBites": 2},
                  "hooks": [{"url": "a"}, {"url": "b", "secret": "s"}], "tags": {"any": 1, "name": 2}}}
      """
    let found = try problems(json) { $0.read(Section.self, section: "worker") }
    #expect(
      found == [
        "worker.hooks[1].secret is not a known key", "worker.limits.maxBites is not a known key",
        "worker.listne is not a known key",
      ])
  }

  @Test("top-level keys: known sections pass unread, anything else is an error")
  func topLevel() throws {
    let json = #"{"service": {"whatever": 1}, "apps": [], "servcie": {}, "worker": {}}"#
    let found = try problems(json) { $0.read(Section.self, section: "worker") }
    #expect(found == ["servcie is not a known key"])
    #expect(ConfigKeys.knownSections["service"] == "serve")
  }

  @Test("the catalog at the top level is read like any section")
  func catalog() throws {
    let json = """
      {"apps": [{"id": "ios", "store": "app_store", "bundleId": "b", "bundleID": "c"}],
       "gracePolicy": {"renewalLeewayMs": 1, "honourStoreGracePeriod": true}, "entitlements": [{"id": "p"}]}
      """
    let found = try problems(json) { $0.read(ProductCatalog.self) }
    #expect(found == ["apps[0].bundleID is not a known key", "gracePolicy.honourStoreGracePeriod is not a known key"])
  }

  @Test("several types reading one section together know the union of their keys")
  func union() throws {
    struct Other: Decodable { var extra: Int? }
    let json = #"{"worker": {"listen": "a", "extra": 1, "nope": 2}}"#
    let found = try problems(json) { keys in
      keys.read(Section.self, section: "worker")
      keys.read(Other.self, section: "worker")
    }
    #expect(found == ["worker.nope is not a known key"])
  }

  @Test("a section that does not decode is left to the decoder's own error")
  func undecodable() throws {
    let keys = try ConfigKeys(json: Data(#"{"worker": {"listen": 5, "nope": 1}}"#.utf8))
    #expect(!keys.read(Section.self, section: "worker"))
    #expect(keys.problems.isEmpty)
    // The recorder decodes as JSONDecoder does: no number where a string is expected.
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(Section.self, from: Data(#"{"listen": 5}"#.utf8))
    }
  }

  @Test("not JSON, or not an object, is an error")
  func notJSON() {
    #expect(throws: WorkerConfigurationError.self) { try ConfigKeys(json: Data("{".utf8)) }
    #expect(throws: WorkerConfigurationError.self) { try ConfigKeys(json: Data("[1]".utf8)) }
  }
}

@Suite("Listen addresses")
struct ListenAddressTests {
  @Test(
    "valid addresses",
    arguments: [
      ("127.0.0.1:7703", "127.0.0.1", 7703), ("0.0.0.0:0", "0.0.0.0", 0), ("localhost:65535", "localhost", 65_535),
      ("[::1]:7704", "::1", 7704), ("worker-1.internal:80", "worker-1.internal", 80),
    ])
  func valid(text: String, host: String, port: Int) throws {
    let address = try ListenAddress.parse(text, key: "worker.listen")
    #expect(address == ListenAddress(host: host, port: port))
    #expect(ListenAddress(address.description) == address)
  }

  @Test(
    "invalid addresses are errors naming the key",
    arguments: [
      "127.0.0.1:99999", "127.0.0.1:65536", "localhost", ":7703", "::1:7703", "127.0.0.1:", "127.0.0.1:+80",
      "127.0.0.1:-1", "127.0.0.1:7703x", "bad host:80", "[nope]:80", "127.0.0.1:0000099999", "*:80",
    ])
  func invalid(text: String) {
    #expect(ListenAddress(text) == nil)
    let problem = ListenAddress.problem(text, key: "worker.adminListen")
    #expect(problem?.hasPrefix("worker.adminListen: \"\(text)\" is not an address to listen on") == true)
    #expect(throws: WorkerConfigurationError.self) { try ListenAddress.parse(text, key: "worker.listen") }
  }
}
