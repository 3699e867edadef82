import Foundation
import GooglePlay
import Testing
import TollgateCrypto
import TollgateTesting

/// The real Google-signed ID tokens and Google's keys of their time (google-auth-library-java's
/// vectors), and tokens signed here with a generated key for claims no real token has.
enum OIDCTestTokens {
  static let directory = "google/oidc-google-auth-library-java/"
  static let serviceAccountToken = directory + "google-id-token-rs256-service-account-2020-04-23.txt"
  static let cloudTasksToken = directory + "google-id-token-rs256-cloudtasks-2022-08-19-kid-not-in-jwks.txt"
  static let es256Token = directory + "iap-id-token-es256-2020-03-12.txt"
  static let jwks = directory + "googleapis-oauth2-v3-certs-jwks-2020-04.json"
  static let pemCertificates = directory + "googleapis-oauth2-v1-certs-pem-2020-04.json"

  static let audience = "https://example.com/path"
  static let serviceAccount = "integration-tests@chingor-test.iam.gserviceaccount.com"
  /// The service-account token's `iat` and `exp`, in seconds.
  static let issuedAt: Int64 = 1_587_626_288
  static let expiresAt: Int64 = 1_587_629_888

  static func claims(of compact: String) throws -> [String: Any] {
    let parts = compact.split(separator: ".")
    let payload = try #require(Base64URL.decode(parts[1]))
    return try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
  }

  /// A compact token with `header` and `claims`, RS256-signed with `key`.
  static func sign(header: [String: String], claims: [String: Any], key: RSAPrivateKey) throws -> String {
    let headerJSON = try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys])
    let claimsJSON = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
    let input = Base64URL.encode(headerJSON) + "." + Base64URL.encode(claimsJSON)
    return input + "." + Base64URL.encode(try RS256.sign(Array(input.utf8), with: key))
  }

  /// Claims like a Pub/Sub push token's, issued at `iat` seconds.
  static func pushClaims(iat: Int64, overriding changes: [String: Any] = [:]) -> [String: Any] {
    var claims: [String: Any] = [
      "iss": "https://accounts.google.com", "aud": audience, "email": serviceAccount, "email_verified": true,
      "iat": iat, "exp": iat + 3600, "sub": "1234",
    ]
    for (name, value) in changes { claims[name] = value }
    return claims
  }
}
