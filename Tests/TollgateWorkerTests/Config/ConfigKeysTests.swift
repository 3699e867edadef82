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
