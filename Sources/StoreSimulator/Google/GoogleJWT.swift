import Foundation
import TollgateCrypto

/// Compact RS256 JWTs as Google's services write and read them: the service account's
/// assertion (read by the token endpoint) and the OIDC ID tokens of Pub/Sub pushes (written).
enum GoogleJWT {
  /// A JWT that split and decoded, not yet verified.
  struct Parsed {
    var header: [String: Any]
    var claims: [String: Any]
    var signingInput: [UInt8]
    var signature: [UInt8]

    var kid: String? { header["kid"] as? String }
    func string(_ claim: String) -> String? { claims[claim] as? String }
    func seconds(_ claim: String) -> Int64? { (claims[claim] as? NSNumber)?.int64Value }
  }

  /// `claims` signed with `key`, header `{"alg":"RS256","kid":kid,"typ":"JWT"}`.
  static func sign(claims: [String: Any], kid: String, key: RSAPrivateKey) -> String {
    let header: [String: Any] = ["alg": "RS256", "kid": kid, "typ": "JWT"]
    do {
      let headerJSON = try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys])
      let claimsJSON = try JSONSerialization.data(
        withJSONObject: claims, options: [.sortedKeys, .withoutEscapingSlashes])
      let input = Base64URL.encode(headerJSON) + "." + Base64URL.encode(claimsJSON)
      return input + "." + Base64URL.encode(try RS256.sign(Array(input.utf8), with: key))
    } catch {
      // Encoding string and number claims and signing with a loaded key cannot fail short of a bug.
      preconditionFailure("cannot sign a simulated Google token: \(error)")
    }
  }

  static func parse(_ compact: some StringProtocol) -> Parsed? {
    let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let claimBytes = Base64URL.decode(parts[1]),
      let signature = Base64URL.decode(parts[2]),
      let header = (try? JSONSerialization.jsonObject(with: Data(headerBytes))) as? [String: Any],
      let claims = (try? JSONSerialization.jsonObject(with: Data(claimBytes))) as? [String: Any]
    else { return nil }
    let input = Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8)
    return Parsed(header: header, claims: claims, signingInput: input, signature: signature)
  }

  /// Lower-case hex of `bytes`.
  static func hex(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
  }
}
