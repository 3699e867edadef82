import Foundation
import TollgateCrypto

/// Google's OIDC signing keys by `kid`, from either format Google publishes: a JWKS
/// (`https://www.googleapis.com/oauth2/v3/certs`: `{"keys": [{"kid", "kty", "n", "e", …}]}`) or the
/// older `{kid: PEM certificate}` object (`…/oauth2/v1/certs`). Only RSA keys are kept; other
/// JWKS entries (EC keys) are skipped, since only RS256 tokens are accepted.
public struct GoogleKeySet: Sendable {
  public let keys: [String: RSAPublicKey]

  public init(keys: [String: RSAPublicKey]) { self.keys = keys }

  /// Parses either format. A key set with no usable RSA key is `.malformedKeySet`.
  public init(json: [UInt8]) throws(OIDCVerificationError) {
    guard let object = try? JSONSerialization.jsonObject(with: Data(json)) as? [String: Any] else {
      throw OIDCVerificationError(code: .malformedKeySet, message: "the key set is not a JSON object")
    }
    var keys: [String: RSAPublicKey] = [:]
    if let entries = object["keys"] as? [[String: Any]] {
      for entry in entries {
        guard let kid = entry["kid"] as? String, (entry["kty"] as? String) == "RSA",
          (entry["alg"] as? String).map({ $0 == "RS256" }) ?? true,
          let n = (entry["n"] as? String).flatMap({ Base64URL.decode($0) }),
          let e = (entry["e"] as? String).flatMap({ Base64URL.decode($0) }),
          let key = try? RSAPublicKey(modulus: n, exponent: e)
        else { continue }
        keys[kid] = key
      }
    } else {
      for (kid, value) in object {
        guard let pem = value as? String, let certificate = try? Certificate(pem: pem),
          let key = try? certificate.rsaPublicKey()
        else { continue }
        keys[kid] = key
      }
    }
    guard !keys.isEmpty else {
      throw OIDCVerificationError(code: .malformedKeySet, message: "the key set holds no RSA key")
    }
    self.keys = keys
  }
}
