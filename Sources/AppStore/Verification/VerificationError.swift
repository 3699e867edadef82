/// Why a signed App Store payload was refused. Expected outcomes: returned in
/// `VerificationResult.invalid`, never thrown.
///
/// Apple's libraries fold several of these into VERIFICATION_FAILURE or INVALID_JWT_FORMAT;
/// Tollgate keeps them apart so logs and `tollgate inspect` say exactly what was wrong.
public struct VerificationError: Error, Sendable, Hashable, CustomStringConvertible {
  public struct Code: Sendable, Hashable, CustomStringConvertible {
    fileprivate enum Wrapped: String, Sendable, Hashable {
      case invalidJWTFormat = "invalid_jwt_format"
      case malformedBase64 = "malformed_base64"
      case unsupportedAlgorithm = "unsupported_algorithm"
      case missingCertificateChain = "missing_certificate_chain"
      case invalidChainLength = "invalid_chain_length"
      case invalidCertificate = "invalid_certificate"
      case verificationFailure = "verification_failure"
      case signatureMismatch = "signature_mismatch"
      case malformedPayload = "malformed_payload"
      case invalidAppIdentifier = "invalid_app_identifier"
      case invalidEnvironment = "invalid_environment"
      case invalidSharedSecret = "invalid_shared_secret"
      case oversized = "oversized"
    }

    fileprivate var wrapped: Wrapped

    /// Not three dot-separated segments, or a header that is not a JSON object.
    public static let invalidJWTFormat = Code(wrapped: .invalidJWTFormat)
    /// A segment is not base64url.
    public static let malformedBase64 = Code(wrapped: .malformedBase64)
    /// `alg` is not ES256 (including "none" and HS256).
    public static let unsupportedAlgorithm = Code(wrapped: .unsupportedAlgorithm)
    /// The header has no `x5c` array.
    public static let missingCertificateChain = Code(wrapped: .missingCertificateChain)
    /// `x5c` does not hold exactly three certificates.
    public static let invalidChainLength = Code(wrapped: .invalidChainLength)
    /// An `x5c` entry is not a base64 DER certificate.
    public static let invalidCertificate = Code(wrapped: .invalidCertificate)
    /// The chain does not lead to a configured root at the signed date, or misses Apple's
    /// marker OIDs.
    public static let verificationFailure = Code(wrapped: .verificationFailure)
    /// The chain is good but the signature does not match header.payload (tampered payload).
    public static let signatureMismatch = Code(wrapped: .signatureMismatch)
    /// The payload is not the JSON object expected.
    public static let malformedPayload = Code(wrapped: .malformedPayload)
    /// bundleId (or appAppleId in production) is not the configured app's.
    public static let invalidAppIdentifier = Code(wrapped: .invalidAppIdentifier)
    /// The payload's environment is not one this verifier accepts.
    public static let invalidEnvironment = Code(wrapped: .invalidEnvironment)
    /// A V1 notification's `password` is not the app's shared secret.
    public static let invalidSharedSecret = Code(wrapped: .invalidSharedSecret)
    /// A body, a JWS header or a certificate larger than Apple's ever are
    /// (`NotificationBodyPrecheck`): refused before it is decoded.
    public static let oversized = Code(wrapped: .oversized)

    /// The stable snake_case name (`tollgate inspect` prints it).
    public var description: String { wrapped.rawValue }
  }

  public var code: Code
  public var message: String

  public init(code: Code, message: String) {
    self.code = code
    self.message = message
  }

  public var description: String { "\(code): \(message)" }
}

/// The outcome of verifying a signed payload.
public enum VerificationResult<Payload: Sendable>: Sendable {
  case valid(Payload)
  case invalid(VerificationError)

  public var payload: Payload? {
    if case .valid(let payload) = self { return payload }
    return nil
  }

  public var error: VerificationError? {
    if case .invalid(let error) = self { return error }
    return nil
  }

  public func map<T: Sendable>(_ transform: (Payload) -> VerificationResult<T>) -> VerificationResult<T> {
    switch self {
    case .valid(let payload): return transform(payload)
    case .invalid(let error): return .invalid(error)
    }
  }
}
