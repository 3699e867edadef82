/// Why an SNS message was not accepted as coming from Amazon SNS. Expected outcomes: returned in a
/// `Result`, never thrown past the verifier. All but `certificateUnavailable` mean "not an
/// authentic message for us" (answer 4xx, store nothing); `certificateUnavailable` means Tollgate
/// could not check (answer 5xx so SNS delivers again).
public struct SNSVerificationError: Error, Sendable, Hashable, CustomStringConvertible {
  public struct Code: Sendable, Hashable, CustomStringConvertible {
    fileprivate enum Wrapped: String, Sendable, Hashable {
      case missingField = "missing_field"
      case unsupportedSignatureVersion = "unsupported_signature_version"
      case untrustedCertificateURL = "untrusted_certificate_url"
      case certificateUnavailable = "certificate_unavailable"
      case certificateExpired = "certificate_expired"
      case badSignature = "bad_signature"
      case topicNotAllowed = "topic_not_allowed"
      case malformed
    }

    fileprivate var wrapped: Wrapped

    /// A field the signed text or the check needs is absent.
    public static let missingField = Code(wrapped: .missingField)
    /// `SignatureVersion` is neither "1" (SHA1withRSA) nor "2" (SHA256withRSA).
    public static let unsupportedSignatureVersion = Code(wrapped: .unsupportedSignatureVersion)
    /// `SigningCertURL` (or `SubscribeURL`) is not an SNS URL (`https://sns.<region>.amazonaws.com/…`)
    /// nor under a configured trusted prefix. Nothing was fetched.
    public static let untrustedCertificateURL = Code(wrapped: .untrustedCertificateURL)
    /// The signing certificate could not be fetched or parsed: retry later (transient).
    public static let certificateUnavailable = Code(wrapped: .certificateUnavailable)
    /// The certificate was not valid at the message's `Timestamp`.
    public static let certificateExpired = Code(wrapped: .certificateExpired)
    /// The signature does not match the message under the certificate's key.
    public static let badSignature = Code(wrapped: .badSignature)
    /// `TopicArn` is not one of the configured topics.
    public static let topicNotAllowed = Code(wrapped: .topicNotAllowed)
    /// Not an SNS message: an unknown `Type`, a `Timestamp` or `Signature` that does not parse.
    public static let malformed = Code(wrapped: .malformed)

    /// The stable snake_case name (`tollgate inspect` prints it).
    public var description: String { wrapped.rawValue }
  }

  public var code: Code
  public var message: String

  public init(code: Code, message: String) {
    self.code = code
    self.message = message
  }

  /// Whether Tollgate could not decide (answer 5xx and let SNS deliver again) rather than refuse.
  public var isTransient: Bool { code == .certificateUnavailable }

  public var description: String { "SNSVerificationError(\(code)): \(message)" }
}
