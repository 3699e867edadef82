/// Why a Pub/Sub push request's `Authorization: Bearer` OIDC token was refused. Expected outcomes:
/// returned in a `Result`, never thrown past the authenticator. All but `keySetUnavailable` mean
/// "not from our push subscription" (answer 401/403 and store nothing); `keySetUnavailable` means
/// Tollgate could not check (answer 503 so Pub/Sub redelivers).
public struct OIDCVerificationError: Error, Sendable, Hashable, CustomStringConvertible {
  public struct Code: Sendable, Hashable, CustomStringConvertible {
    fileprivate enum Wrapped: String, Sendable, Hashable {
      case missingToken = "missing_token"
      case malformedToken = "malformed_token"
      case unsupportedAlgorithm = "unsupported_algorithm"
      case unknownKey = "unknown_key"
      case signatureMismatch = "signature_mismatch"
      case invalidIssuer = "invalid_issuer"
      case invalidAudience = "invalid_audience"
      case invalidEmail = "invalid_email"
      case emailNotVerified = "email_not_verified"
      case expired
      case issuedInFuture = "issued_in_future"
      case malformedKeySet = "malformed_key_set"
      case keySetUnavailable = "key_set_unavailable"
    }

    fileprivate var wrapped: Wrapped

    /// No `Authorization: Bearer …` header.
    public static let missingToken = Code(wrapped: .missingToken)
    /// Not three base64url segments, or a header or payload that is not the JSON expected.
    public static let malformedToken = Code(wrapped: .malformedToken)
    /// `alg` is not RS256 (`none`, HS256 and ES256 included).
    public static let unsupportedAlgorithm = Code(wrapped: .unsupportedAlgorithm)
    /// No key with the token's `kid` in Google's key set, even after a refetch.
    public static let unknownKey = Code(wrapped: .unknownKey)
    /// The signature does not match header.payload under the key of that `kid` (tampered token).
    public static let signatureMismatch = Code(wrapped: .signatureMismatch)
    /// `iss` is not `accounts.google.com` or `https://accounts.google.com`.
    public static let invalidIssuer = Code(wrapped: .invalidIssuer)
    /// `aud` is not the configured push audience.
    public static let invalidAudience = Code(wrapped: .invalidAudience)
    /// `email` is not the configured push service account.
    public static let invalidEmail = Code(wrapped: .invalidEmail)
    /// `email_verified` is not true.
    public static let emailNotVerified = Code(wrapped: .emailNotVerified)
    /// `exp` is past, beyond the allowed skew.
    public static let expired = Code(wrapped: .expired)
    /// `iat` is in the future, beyond the allowed skew.
    public static let issuedInFuture = Code(wrapped: .issuedInFuture)
    /// The key set is neither a JWKS nor a `{kid: PEM certificate}` object with RSA keys.
    public static let malformedKeySet = Code(wrapped: .malformedKeySet)
    /// Google's keys could not be fetched and none are cached: retry later (transient).
    public static let keySetUnavailable = Code(wrapped: .keySetUnavailable)

    /// The stable snake_case name (`tollgate inspect` prints it).
    public var description: String { wrapped.rawValue }
  }

  public var code: Code
  public var message: String

  public init(code: Code, message: String) {
    self.code = code
    self.message = message
  }

  /// Whether Tollgate could not decide (answer 503 and let Pub/Sub redeliver) rather than refuse.
  public var isTransient: Bool { code == .keySetUnavailable }

  public var description: String { "OIDCVerificationError(\(code)): \(message)" }
}
