import Foundation
import TollgateCrypto

/// The signed JWT a service account presents to the token endpoint (RFC 7523 JWT-bearer grant):
/// header `{"alg":"RS256","typ":"JWT","kid":private_key_id}`, claims `iss` = client_email,
/// `scope`, `aud` = token_uri, `iat` and `exp` = iat + lifetime (Google allows at most an hour).
public struct ServiceAccountAssertion: Sendable {
  public let key: ServiceAccountKey
  public let scope: String
  public let lifetimeSeconds: Int64

  public init(key: ServiceAccountKey, scope: String = GooglePlay.androidPublisherScope, lifetimeSeconds: Int64 = 3600) {
    self.key = key
    self.scope = scope
    self.lifetimeSeconds = min(max(lifetimeSeconds, 1), 3600)
  }

  /// A compact JWS issued at `nowSeconds` (Unix seconds).
  public func compact(nowSeconds: Int64) throws(GoogleAuthError) -> String {
    let header: [String: Any] = ["alg": "RS256", "typ": "JWT", "kid": key.privateKeyId]
    let claims: [String: Any] = [
      "iss": key.clientEmail, "scope": scope, "aud": key.tokenURI, "iat": nowSeconds,
      "exp": nowSeconds + lifetimeSeconds,
    ]
    do {
      let headerJSON = try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys])
      let claimsJSON = try JSONSerialization.data(
        withJSONObject: claims, options: [.sortedKeys, .withoutEscapingSlashes])
      let input = Base64URL.encode(headerJSON) + "." + Base64URL.encode(claimsJSON)
      let signature = try RS256.sign(Array(input.utf8), with: key.privateKey)
      return input + "." + Base64URL.encode(signature)
    } catch {
      throw GoogleAuthError(code: .invalidKeyFile, message: "cannot sign the assertion with the key", cause: error)
    }
  }
}
