import Foundation
import TollgateCrypto

/// A compact Google-signed OIDC ID token split into its parts, not yet verified.
public struct GoogleIDToken: Sendable {
  public struct Header: Sendable, Hashable, Decodable {
    public var alg: String?
    public var kid: String?
    public var typ: String?
  }

  /// The claims Tollgate reads. Times are Unix seconds, as in the token.
  public struct Claims: Sendable, Hashable, Decodable {
    public var iss: String?
    /// `aud`: one string in Google's ID tokens; an array is accepted too (RFC 7519).
    public var audiences: [String]
    public var email: String?
    public var emailVerified: Bool?
    public var sub: String?
    public var azp: String?
    public var iat: Int64?
    public var exp: Int64?

    enum CodingKeys: String, CodingKey {
      case iss, aud, email, sub, azp, iat, exp
      case emailVerified = "email_verified"
    }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      iss = try container.decodeIfPresent(String.self, forKey: .iss)
      if let one = try? container.decodeIfPresent(String.self, forKey: .aud) {
        audiences = [one]
      } else {
        audiences = try container.decodeIfPresent([String].self, forKey: .aud) ?? []
      }
      email = try container.decodeIfPresent(String.self, forKey: .email)
      // Some issuers send "true" as a string.
      if let flag = try? container.decodeIfPresent(Bool.self, forKey: .emailVerified) {
        emailVerified = flag
      } else {
        emailVerified = (try? container.decodeIfPresent(String.self, forKey: .emailVerified)).map { $0 == "true" }
      }
      sub = try container.decodeIfPresent(String.self, forKey: .sub)
      azp = try container.decodeIfPresent(String.self, forKey: .azp)
      iat = try container.decodeIfPresent(Int64.self, forKey: .iat)
      exp = try container.decodeIfPresent(Int64.self, forKey: .exp)
    }
  }

  public var header: Header
  /// The payload JSON bytes (decoded into `claims` only after the signature is checked).
  public var payload: [UInt8]
  /// `BASE64URL(header) "." BASE64URL(payload)`, the signed bytes.
  public var signingInput: [UInt8]
  public var signature: [UInt8]

  /// Splits and decodes `compact`.
  public static func parse(_ compact: some StringProtocol) -> Result<GoogleIDToken, OIDCVerificationError> {
    let parts: CompactJWS
    switch CompactJWS.split(compact) {
    case .success(let split): parts = split
    case .failure(.segments(let count)):
      return .failure(OIDCVerificationError(code: .malformedToken, message: "expected 3 segments, got \(count)"))
    case .failure(.base64):
      return .failure(OIDCVerificationError(code: .malformedToken, message: "a token segment is not base64url"))
    }
    guard let header = try? JSONDecoder().decode(Header.self, from: Data(parts.header)) else {
      return .failure(OIDCVerificationError(code: .malformedToken, message: "the token header is not a JSON object"))
    }
    return .success(
      GoogleIDToken(
        header: header, payload: parts.payload, signingInput: parts.signingInput, signature: parts.signature))
  }

  /// The token of an `Authorization` header value (`Bearer <token>`, scheme case-insensitive).
  public static func bearerToken(fromAuthorization value: String?) -> Substring? {
    guard let value else { return nil }
    let trimmed = value.drop { $0 == " " }
    guard trimmed.count > 7, trimmed.prefix(7).lowercased() == "bearer " else { return nil }
    let token = trimmed.dropFirst(7).drop { $0 == " " }
    return token.isEmpty ? nil : token
  }
}
