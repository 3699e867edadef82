import AppStore
import Foundation
import Testing
import TollgateCrypto
import TollgateTesting

@Suite("API token and inspect", .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
struct TokenAndInspectTests {
  @Test func apiTokenFromTestSigningKey() throws {
    let pem = try Vectors.string("apple/apple-lib/certs/testSigningKey.p8")
    let signer = try AppStoreServerAPIToken(
      privateKeyPEM: pem, keyId: "keyId", issuerId: "issuerId", bundleId: "com.example")
    let token = try signer.token(nowSeconds: 1_700_000_000)
    let jws = try JWS.parse(token).get()
    let header = try #require(JSONSerialization.jsonObject(with: Data(jws.headerJSON)) as? [String: Any])
    #expect(
      header["alg"] as? String == "ES256" && header["kid"] as? String == "keyId" && header["typ"] as? String == "JWT")
    let claims = try #require(JSONSerialization.jsonObject(with: Data(jws.payload)) as? [String: Any])
    #expect(claims["iss"] as? String == "issuerId" && claims["aud"] as? String == "appstoreconnect-v1")
    #expect(claims["bid"] as? String == "com.example")
    #expect((claims["iat"] as? NSNumber)?.int64Value == 1_700_000_000)
    #expect((claims["exp"] as? NSNumber)?.int64Value == 1_700_000_300)
    let key = try P256PrivateKey(pem: pem).publicKey
    #expect(ES256.isValidSignature(jws.signature, for: jws.signingInput, publicKey: key))
  }

  @Test("one bearer token is reused for half its lifetime, then the next is signed; a clock gone back gets a new one")
  func bearerTokensReused() throws {
    let pem = try Vectors.string("apple/apple-lib/certs/testSigningKey.p8")
    let tokens = AppStoreBearerTokens(
      try AppStoreServerAPIToken(privateKeyPEM: pem, keyId: "keyId", issuerId: "issuerId", bundleId: "com.example"))
    func issuedAt(_ token: String) throws -> Int64? {
      let claims = try JSONSerialization.jsonObject(with: Data(try JWS.parse(token).get().payload)) as? [String: Any]
      return (claims?["iat"] as? NSNumber)?.int64Value
    }
    let first = try tokens.token(nowSeconds: 1_700_000_000)
    #expect(try tokens.token(nowSeconds: 1_700_000_000) == first)
    #expect(try tokens.token(nowSeconds: 1_700_000_149) == first, "under half of the 300 s lifetime")
    let second = try tokens.token(nowSeconds: 1_700_000_150)
    #expect(second != first)
    #expect(try issuedAt(second) == 1_700_000_150)
    #expect(try tokens.token(nowSeconds: 1_700_000_200) == second)
    let back = try tokens.token(nowSeconds: 1_700_000_100)
    #expect(try issuedAt(back) == 1_700_000_100, "a clock gone back is not sent a token from its future")
    let key = try P256PrivateKey(pem: pem).publicKey
    let jws = try JWS.parse(back).get()
    #expect(ES256.isValidSignature(jws.signature, for: jws.signingInput, publicKey: key))
  }

  @Test func inspectJWS() throws {
    let jws = try Vectors.trimmed("apple/apple-lib/mock_signed_data/testNotification")
    let report = AppStoreInspection.inspectJWS(jws, kind: .notification, verifier: try Fixtures.verifier())
    let object = try #require(JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: Any])
    #expect(object["verdict"] as? String == "valid" && object["error"] is NSNull)
    let payload = try #require(object["payload"] as? [String: Any])
    #expect(payload["notificationType"] as? String == "TEST")
    let chain = try #require((object["header"] as? [String: Any])?["x5c"] as? [[String: Any]])
    #expect(chain.count == 3 && chain[0]["subject"] is String)
    let production = try Fixtures.verifier(environment: .production)
    let rejected = AppStoreInspection.inspectJWS(jws, kind: .notification, verifier: production)
    #expect(rejected.contains("\"error\" : \"invalid_environment\""))
    #expect(
      AppStoreInspection.inspectJWS("a.b", kind: .transaction, verifier: production).contains("invalid_jwt_format"))
  }

  @Test func inspectReceipt() throws {
    let text = try Vectors.string("apple/apple-lib/xcode/xcode-app-receipt-with-transaction")
    let verifier = AppReceiptVerifier(rootCertificates: [try Fixtures.root("apple/roots/StoreKitTestCertificate.cer")])
    let report = AppStoreInspection.inspectReceipt(text, verifier: verifier)
    #expect(report.contains("\"verdict\" : \"valid\"") && report.contains("pass.premium"))
  }
}
