import Foundation
import Testing
import TollgateCrypto

@testable import AppStoreGateway

@Suite("App Store notification routes")
struct NotificationRouteTests {
  func signedPayload(_ claims: [String: Any]) throws -> [UInt8] {
    let payload = Base64URL.encode(Array(try JSONSerialization.data(withJSONObject: claims)))
    return Array(try JSONSerialization.data(withJSONObject: ["signedPayload": "e30.\(payload).c2ln"]))
  }

  @Test("a V2 body's claimed UUID and bundle id are read without trusting it; a malformed one is not well formed")
  func v2Facts() throws {
    let facts = AppStoreGateway.unverifiedV2Facts(
      try signedPayload(["notificationUUID": "u-1", "data": ["bundleId": "com.example.app"]]))
    #expect(facts.isWellFormed)
    #expect(facts.notificationUUID == "u-1")
    #expect(facts.bundleId == "com.example.app")
    #expect(!AppStoreGateway.unverifiedV2Facts(Array("{\"signedPayload\": \"a.b\"}".utf8)).isWellFormed)
    #expect(!AppStoreGateway.unverifiedV2Facts(Array("not json".utf8)).isWellFormed)
  }

  @Test("a V1 body names its bundle id as `bid`")
  func v1BundleId() {
    #expect(AppStoreGateway.unverifiedV1BundleId(Array("{\"bid\": \"com.example.app\"}".utf8)) == "com.example.app")
    #expect(AppStoreGateway.unverifiedV1BundleId(Array("[]".utf8)) == nil)
  }
}
