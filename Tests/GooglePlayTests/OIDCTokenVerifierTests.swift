import Foundation
import GooglePlay
import Testing
import TollgateCrypto
import TollgateTesting

@Suite("Pub/Sub push OIDC tokens", .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
struct OIDCTokenVerifierTests {
  typealias T = OIDCTestTokens
  let verifier = OIDCTokenVerifier(
    config: .init(audience: OIDCTestTokens.audience, serviceAccountEmail: OIDCTestTokens.serviceAccount))

  private func code(_ result: Result<GoogleIDToken.Claims, OIDCVerificationError>) -> OIDCVerificationError.Code? {
    if case .failure(let error) = result { return error.code }
    return nil
  }

  @Test("a real Google-signed token verifies at its own iat with the JWKS and with the PEM certificates")
  func validAtItsTime() throws {
    let token = try Vectors.trimmed(T.serviceAccountToken)
    let iat = try #require(try T.claims(of: token)["iat"] as? Int64)
    #expect(iat == T.issuedAt)
    for keySetFile in [T.jwks, T.pemCertificates] {
      let keys = try GoogleKeySet(json: try Vectors.bytes(keySetFile))
      let claims = try verifier.verify(token, keys: keys, nowMs: iat * 1_000).get()
      #expect(claims.email == T.serviceAccount)
      #expect(claims.emailVerified == true)
      #expect(claims.audiences == [T.audience])
      #expect(claims.exp == T.expiresAt)
    }
  }

  @Test("the token expires after exp plus the skew, and is refused before iat minus the skew")
  func expiryAndSkew() throws {
    let token = try Vectors.trimmed(T.serviceAccountToken)
    let keys = try GoogleKeySet(json: try Vectors.bytes(T.jwks))
    let expMs = T.expiresAt * 1_000
    #expect(code(verifier.verify(token, keys: keys, nowMs: expMs + 299_000)) == nil)
    #expect(code(verifier.verify(token, keys: keys, nowMs: expMs + 300_001)) == .expired)
    #expect(code(verifier.verify(token, keys: keys, nowMs: expMs + 86_400_000)) == .expired)
    #expect(code(verifier.verify(token, keys: keys, nowMs: T.issuedAt * 1_000 - 300_001)) == .issuedInFuture)
    let strict = OIDCTokenVerifier(config: .init(audience: T.audience, allowedSkewMs: 0))
    #expect(code(strict.verify(token, keys: keys, nowMs: expMs + 1)) == .expired)
  }

  @Test("another audience or another push service account is refused")
  func wrongAudienceAndEmail() throws {
    let token = try Vectors.trimmed(T.serviceAccountToken)
    let keys = try GoogleKeySet(json: try Vectors.bytes(T.jwks))
    let at = T.issuedAt * 1_000
    let otherAudience = OIDCTokenVerifier(config: .init(audience: "https://tollgate.example/notifications/google"))
    #expect(code(otherAudience.verify(token, keys: keys, nowMs: at)) == .invalidAudience)
    let otherAccount = OIDCTokenVerifier(
      config: .init(audience: T.audience, serviceAccountEmail: "push@other.iam.gserviceaccount.com"))
    #expect(code(otherAccount.verify(token, keys: keys, nowMs: at)) == .invalidEmail)
    let anyAccount = OIDCTokenVerifier(config: .init(audience: T.audience))
    #expect(code(anyAccount.verify(token, keys: keys, nowMs: at)) == nil)
  }

  @Test("a kid that is not in the key set is an unknown key")
  func unknownKid() throws {
    let token = try Vectors.trimmed(T.cloudTasksToken)
    let keys = try GoogleKeySet(json: try Vectors.bytes(T.jwks))
    #expect(code(verifier.verify(token, keys: keys, nowMs: 1_660_877_073_000)) == .unknownKey)
  }

  @Test("a real ES256 token (IAP) is refused for its algorithm, as are none and HS256")
  func onlyRS256() throws {
    let keys = try GoogleKeySet(json: try Vectors.bytes(T.jwks))
    let es256 = try Vectors.trimmed(T.es256Token)
    #expect(code(verifier.verify(es256, keys: keys, nowMs: 1_584_047_017_000)) == .unsupportedAlgorithm)
    let claims = try JSONSerialization.data(withJSONObject: T.pushClaims(iat: T.issuedAt))
    for alg in ["none", "HS256"] {
      let header = try JSONSerialization.data(withJSONObject: [
        "alg": alg, "kid": "f9d97b4cae90bcd76aeb20026f6b770cac221783",
      ])
      let token = Base64URL.encode(header) + "." + Base64URL.encode(claims) + "." + (alg == "none" ? "" : "c2ln")
      #expect(code(verifier.verify(token, keys: keys, nowMs: T.issuedAt * 1_000)) == .unsupportedAlgorithm)
    }
  }

  @Test("a tampered payload (another audience, same signature) is a signature mismatch")
  func tamperedPayload() throws {
    let token = try Vectors.trimmed(T.serviceAccountToken)
    let keys = try GoogleKeySet(json: try Vectors.bytes(T.jwks))
    var claims = try T.claims(of: token)
    claims["aud"] = "https://tollgate.example/notifications/google"
    let parts = token.split(separator: ".")
    let payload = try JSONSerialization.data(withJSONObject: claims)
    let tampered = "\(parts[0]).\(Base64URL.encode(payload)).\(parts[2])"
    let lenient = OIDCTokenVerifier(config: .init(audience: "https://tollgate.example/notifications/google"))
    #expect(code(lenient.verify(tampered, keys: keys, nowMs: T.issuedAt * 1_000)) == .signatureMismatch)
    #expect(code(verifier.verify(token + "x", keys: keys, nowMs: T.issuedAt * 1_000)) != nil)
  }

  @Test("with a key of our own: a wrong issuer, an unverified email and a missing exp are refused")
  func claimsOfOurOwn() throws {
    let key = try RSAPrivateKey.generate(bits: 2048)
    let keys = GoogleKeySet(keys: ["ours": key.publicKey])
    let header = ["alg": "RS256", "kid": "ours", "typ": "JWT"]
    let at = T.issuedAt * 1_000
    let good = try T.sign(header: header, claims: T.pushClaims(iat: T.issuedAt), key: key)
    #expect(code(verifier.verify(good, keys: keys, nowMs: at)) == nil)
    let plainIssuer = try T.sign(
      header: header, claims: T.pushClaims(iat: T.issuedAt, overriding: ["iss": "accounts.google.com"]), key: key)
    #expect(code(verifier.verify(plainIssuer, keys: keys, nowMs: at)) == nil)
    let cases: [([String: Any], OIDCVerificationError.Code)] = [
      (["iss": "https://cloud.google.com/iap"], .invalidIssuer),
      (["iss": "https://evil.example"], .invalidIssuer),
      (["email_verified": false], .emailNotVerified),
    ]
    for (changes, expected) in cases {
      let token = try T.sign(header: header, claims: T.pushClaims(iat: T.issuedAt, overriding: changes), key: key)
      #expect(code(verifier.verify(token, keys: keys, nowMs: at)) == expected, "\(changes)")
    }
    let arrayAudience = try T.sign(
      header: header, claims: T.pushClaims(iat: T.issuedAt, overriding: ["aud": ["x", T.audience]]), key: key)
    #expect(code(verifier.verify(arrayAudience, keys: keys, nowMs: at)) == nil)
    var noExp = T.pushClaims(iat: T.issuedAt)
    noExp["exp"] = nil
    let withoutExp = try T.sign(header: header, claims: noExp, key: key)
    #expect(code(verifier.verify(withoutExp, keys: keys, nowMs: at)) == .malformedToken)
  }

  @Test("bearer tokens are read from Authorization; key sets with no RSA key are refused")
  func headersAndKeySets() throws {
    #expect(GoogleIDToken.bearerToken(fromAuthorization: "Bearer abc.def.ghi") == "abc.def.ghi")
    #expect(GoogleIDToken.bearerToken(fromAuthorization: "bearer  abc") == "abc")
    #expect(GoogleIDToken.bearerToken(fromAuthorization: "Basic abc") == nil)
    #expect(GoogleIDToken.bearerToken(fromAuthorization: "Bearer ") == nil)
    #expect(GoogleIDToken.bearerToken(fromAuthorization: nil) == nil)
    #expect(throws: OIDCVerificationError.self) {
      try GoogleKeySet(json: try Vectors.bytes(T.directory + "iap-public-key-jwk-2020.json"))
    }
    #expect(throws: OIDCVerificationError.self) { try GoogleKeySet(json: Array("[]".utf8)) }
  }
}
