import Foundation
import TollgateCrypto

/// Verifies the Google-signed OIDC ID token that Cloud Pub/Sub push sends in `Authorization:
/// Bearer …`: RS256 only, the key chosen by `kid`, Google's issuer, the configured audience and
/// push service account, and `iat`/`exp` within a skew, all at a given moment.
public struct OIDCTokenVerifier: Sendable {
  public struct Config: Sendable, Hashable {
    /// The push subscription's audience (by default Google uses the push endpoint URL).
    public var audience: String
    /// The push subscription's service account; when set, `email` must equal it and
    /// `email_verified` must be true.
    public var serviceAccountEmail: String?
    /// How far `iat` may lie in the future and `exp` in the past, in milliseconds.
    public var allowedSkewMs: Int64

    /// The issuers of Google's ID tokens.
    public static let googleIssuers: Set<String> = ["accounts.google.com", "https://accounts.google.com"]

    public init(audience: String, serviceAccountEmail: String? = nil, allowedSkewMs: Int64 = 300_000) {
      self.audience = audience
      self.serviceAccountEmail = serviceAccountEmail
      self.allowedSkewMs = allowedSkewMs
    }
  }

  public let config: Config

  public init(config: Config) { self.config = config }

  /// Verifies `token` (the compact form, without `Bearer `) with `keys` at `nowMs`.
  public func verify(_ token: some StringProtocol, keys: GoogleKeySet, nowMs: Int64) -> Result<
    GoogleIDToken.Claims, OIDCVerificationError
  > {
    GoogleIDToken.parse(token).flatMap { verify($0, keys: keys, nowMs: nowMs) }
  }

  public func verify(_ token: GoogleIDToken, keys: GoogleKeySet, nowMs: Int64) -> Result<
    GoogleIDToken.Claims, OIDCVerificationError
  > {
    guard token.header.alg == "RS256" else {
      return .failure(
        OIDCVerificationError(
          code: .unsupportedAlgorithm, message: "alg \(token.header.alg ?? "(none)") is not RS256"))
    }
    guard let kid = token.header.kid, let key = keys.keys[kid] else {
      return .failure(
        OIDCVerificationError(code: .unknownKey, message: "no Google key with kid \(token.header.kid ?? "(none)")"))
    }
    guard RS256.isValidSignature(token.signature, for: token.signingInput, publicKey: key) else {
      return .failure(
        OIDCVerificationError(code: .signatureMismatch, message: "the signature does not match (kid \(kid))"))
    }
    guard let claims = try? JSONDecoder().decode(GoogleIDToken.Claims.self, from: Data(token.payload)) else {
      return .failure(
        OIDCVerificationError(code: .malformedToken, message: "the token payload is not the claims expected"))
    }
    return check(claims, nowMs: nowMs).map { claims }
  }

  /// The claim checks, after the signature.
  func check(_ claims: GoogleIDToken.Claims, nowMs: Int64) -> Result<Void, OIDCVerificationError> {
    guard let issuer = claims.iss, Config.googleIssuers.contains(issuer) else {
      return .failure(
        OIDCVerificationError(code: .invalidIssuer, message: "iss \(claims.iss ?? "(none)") is not Google's"))
    }
    guard claims.audiences.contains(config.audience) else {
      return .failure(
        OIDCVerificationError(
          code: .invalidAudience,
          message: "aud \(claims.audiences.joined(separator: ",")) is not the configured push audience"))
    }
    if let expected = config.serviceAccountEmail {
      guard claims.email == expected else {
        return .failure(
          OIDCVerificationError(
            code: .invalidEmail, message: "email \(claims.email ?? "(none)") is not the configured push service account"
          ))
      }
      guard claims.emailVerified == true else {
        return .failure(OIDCVerificationError(code: .emailNotVerified, message: "email_verified is not true"))
      }
    }
    guard let exp = claims.exp, let iat = claims.iat else {
      return .failure(OIDCVerificationError(code: .malformedToken, message: "the token has no iat or exp"))
    }
    let expMs = Self.milliseconds(exp)
    let iatMs = Self.milliseconds(iat)
    guard nowMs <= expMs.addingSaturating(config.allowedSkewMs) else {
      return .failure(OIDCVerificationError(code: .expired, message: "the token expired at \(expMs) ms"))
    }
    guard iatMs.addingSaturating(-config.allowedSkewMs) <= nowMs else {
      return .failure(OIDCVerificationError(code: .issuedInFuture, message: "the token is issued at \(iatMs) ms"))
    }
    return .success(())
  }

  /// Unix seconds as milliseconds, saturating (a hostile `exp` must not trap).
  static func milliseconds(_ seconds: Int64) -> Int64 {
    let (value, overflow) = seconds.multipliedReportingOverflow(by: 1_000)
    return overflow ? (seconds < 0 ? .min : .max) : value
  }
}

extension Int64 {
  fileprivate func addingSaturating(_ other: Int64) -> Int64 {
    let (value, overflow) = addingReportingOverflow(other)
    return overflow ? (other < 0 ? .min : .max) : value
  }
}
