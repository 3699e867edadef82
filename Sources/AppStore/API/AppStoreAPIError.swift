/// Why an App Store Server API call did not return its body: what the worker needs to decide
/// between retrying (with backoff), refreshing credentials and giving up.
public struct AppStoreAPIError: Error, Sendable, CustomStringConvertible {
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private enum Wrapped: String, Hashable, Sendable {
      case unauthorized, notFound, rateLimited, serverError, badRequest, transport, invalidResponse, credentials
    }
    private let wrapped: Wrapped
    private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

    /// 401: the bearer token was refused (bad key, issuer, bundle id or clock skew).
    public static let unauthorized = Code(.unauthorized)
    /// 404: no such transaction or order (Apple's errorCode tells which).
    public static let notFound = Code(.notFound)
    /// 429: slow down; `retryAfterMs` says how long when Apple said so.
    public static let rateLimited = Code(.rateLimited)
    /// 5xx: Apple's trouble; retry with backoff.
    public static let serverError = Code(.serverError)
    /// Another 4xx: the request is wrong (invalid transaction id, ...); retrying will not help.
    public static let badRequest = Code(.badRequest)
    /// No answer: connection refused, reset, TLS failure, timeout.
    public static let transport = Code(.transport)
    /// An answer that is not what the API documents.
    public static let invalidResponse = Code(.invalidResponse)
    /// The API token could not be made (key missing or unreadable).
    public static let credentials = Code(.credentials)

    public var description: String { wrapped.rawValue }
  }

  public var code: Code
  public var message: String
  /// The HTTP status, when there was an answer.
  public var httpStatus: Int?
  /// Apple's numeric `errorCode` from the error body (for example 4040010 transaction id not found).
  public var apiErrorCode: Int?
  /// From `Retry-After`, when Apple sent one.
  public var retryAfterMs: Int64?
  public var cause: (any Error)?

  public init(
    code: Code, message: String, httpStatus: Int? = nil, apiErrorCode: Int? = nil, retryAfterMs: Int64? = nil,
    cause: (any Error)? = nil
  ) {
    self.code = code
    self.message = message
    self.httpStatus = httpStatus
    self.apiErrorCode = apiErrorCode
    self.retryAfterMs = retryAfterMs
    self.cause = cause
  }

  /// Whether the same call may succeed later. Never a reason to revoke anything.
  public var isRetryable: Bool {
    code == .rateLimited || code == .serverError || code == .transport || code == .unauthorized
  }

  public var description: String {
    var text = "App Store API \(code): \(message)"
    if let httpStatus { text += " (HTTP \(httpStatus)" + (apiErrorCode.map { ", errorCode \($0)" } ?? "") + ")" }
    return text
  }
}
