/// Why Tollgate could not get an access token for the Android Publisher API. None of these is
/// the buyer's fault: `isOperatorError` means the service account needs fixing (alert, keep
/// purchases pending), `isTransient` means retry later.
public struct GoogleAuthError: Error, Sendable, CustomStringConvertible {
  public struct Code: Sendable, Hashable, CustomStringConvertible {
    fileprivate enum Wrapped: String, Sendable, Hashable {
      case invalidKeyFile = "invalid_key_file"
      case invalidGrant = "invalid_grant"
      case unauthorizedClient = "unauthorized_client"
      case rejected
      case unavailable
      case malformedResponse = "malformed_response"
    }

    fileprivate var wrapped: Wrapped

    /// The service-account key file is missing, not JSON, not a `service_account` key, or its
    /// `private_key` is not an RSA PKCS#8 PEM: download a new JSON key from Google Cloud.
    public static let invalidKeyFile = Code(wrapped: .invalidKeyFile)
    /// The token endpoint answered `invalid_grant`: the key was deleted or disabled, the service
    /// account no longer exists, or this machine's clock is far off. Create a new key or fix the
    /// clock.
    public static let invalidGrant = Code(wrapped: .invalidGrant)
    /// `unauthorized_client`: the service account may not use this grant or scope.
    public static let unauthorizedClient = Code(wrapped: .unauthorizedClient)
    /// Another 4xx from the token endpoint (the error says which): check the key and `token_uri`.
    public static let rejected = Code(wrapped: .rejected)
    /// No answer, a timeout, 429 or a 5xx: transient, retry later.
    public static let unavailable = Code(wrapped: .unavailable)
    /// A 200 whose body is not `{access_token, expires_in, token_type}`.
    public static let malformedResponse = Code(wrapped: .malformedResponse)

    public var description: String { wrapped.rawValue }
  }

  public var code: Code
  public var message: String
  /// The token endpoint's HTTP status, when there was an answer.
  public var httpStatus: Int?
  public var cause: (any Error)?

  public init(code: Code, message: String, httpStatus: Int? = nil, cause: (any Error)? = nil) {
    self.code = code
    self.message = message
    self.httpStatus = httpStatus
    self.cause = cause
  }

  /// The operator must fix the service account or its key; retrying will not help.
  public var isOperatorError: Bool { code != .unavailable && code != .malformedResponse }
  /// Retrying later may succeed.
  public var isTransient: Bool { code == .unavailable || code == .malformedResponse }

  public var description: String {
    "Google OAuth \(code): \(message)" + (httpStatus.map { " (HTTP \($0))" } ?? "")
  }
}
