import AppStore
import Foundation
import TollgateCrypto

/// Checks the `Authorization: Bearer <ES256 JWT>` of an App Store Server API request the way
/// Apple does: `aud` appstoreconnect-v1, `bid` a configured app, `exp` in the future and at
/// most an hour after `iat` (real wall-clock time: tokens are minted with real time), and, when
/// the app has an API key configured, `kid`, `iss` and the signature.
enum AppleAPIAuth {
  private struct Claims: Decodable {
    var iss: String?
    var iat: Int64?
    var exp: Int64?
    var aud: String?
    var bid: String?
  }

  enum Outcome {
    case accepted(StoreSimulator.AppleApp)
    case refused(String)
  }

  /// The app the token is for, or why it is refused.
  static func check(_ authorization: String?, apps: [StoreSimulator.AppleApp], nowSeconds: Int64)
    -> Outcome
  {
    guard let authorization, authorization.hasPrefix("Bearer ") else { return .refused("no bearer token") }
    let token = String(authorization.dropFirst("Bearer ".count)).trimmingCharacters(in: .whitespaces)
    guard case .success(let jws) = JWS.parse(token) else { return .refused("malformed token") }
    guard jws.header.alg == "ES256" else { return .refused("alg is not ES256") }
    guard let claims = try? JSONDecoder().decode(Claims.self, from: Data(jws.payload)) else {
      return .refused("claims are not JSON")
    }
    guard claims.aud == "appstoreconnect-v1" else { return .refused("aud is not appstoreconnect-v1") }
    guard let exp = claims.exp, let iat = claims.iat, exp > nowSeconds, iat <= nowSeconds + 60, exp - iat <= 3_600
    else {
      return .refused("token expired or lives longer than an hour")
    }
    guard let app = apps.first(where: { $0.bundleId == claims.bid }) else { return .refused("unknown bid") }
    guard let key = app.apiKey else { return .accepted(app) }
    guard jws.header.kid == key.keyId, claims.iss == key.issuerId else { return .refused("wrong kid or iss") }
    guard let publicKey = key.publicKey,
      ES256.isValidSignature(jws.signature, for: jws.signingInput, publicKey: publicKey)
    else { return .refused("bad signature") }
    return .accepted(app)
  }
}
