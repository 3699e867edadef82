import Foundation
import TollgateCrypto

/// Signs the ES256 bearer tokens the App Store Server API expects, with the `.p8` key from
/// App Store Connect (parsed once, at init).
///
/// Header `{alg: ES256, kid, typ: JWT}`; claims `iss`, `iat`, `exp`, `aud: appstoreconnect-v1`,
/// `bid`. Apple refuses tokens that live longer than 60 minutes.
public struct AppStoreServerAPIToken: Sendable {
  public let keyId: String
  public let issuerId: String
  public let bundleId: String
  /// Token lifetime in seconds (at most 3600).
  public let lifetimeSeconds: Int64
  private let key: P256PrivateKey

  public init(
    privateKeyPEM: String, keyId: String, issuerId: String, bundleId: String, lifetimeSeconds: Int64 = 300
  ) throws(CryptoError) {
    self.key = try P256PrivateKey(pem: privateKeyPEM)
    self.keyId = keyId
    self.issuerId = issuerId
    self.bundleId = bundleId
    self.lifetimeSeconds = min(max(lifetimeSeconds, 1), 3600)
  }

  /// A compact JWS issued at `nowSeconds` (Unix seconds).
  public func token(nowSeconds: Int64) throws -> String {
    let claims: [String: any Sendable] = [
      "iss": issuerId, "iat": nowSeconds, "exp": nowSeconds + lifetimeSeconds, "aud": "appstoreconnect-v1",
      "bid": bundleId,
    ]
    let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
    return try JWS.signES256(header: ["kid": keyId, "typ": "JWT"], payloadJSON: Array(payload), key: key)
  }

  /// A token issued now.
  public func token() throws -> String { try token(nowSeconds: Int64(Date().timeIntervalSince1970)) }
}
