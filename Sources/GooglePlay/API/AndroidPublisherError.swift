/// Why an Android Publisher API call did not return its body, classified as Google documents its
/// errors, so the worker can tell "retry later" from "our credentials" from "the store says no".
public struct AndroidPublisherError: Error, Sendable, CustomStringConvertible {
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private enum Wrapped: String, Hashable, Sendable {
      case badRequest, unauthorized, forbidden, notFound, gone, rateLimited, serverError, transport,
        invalidResponse, credentials
    }
    private let wrapped: Wrapped
    private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

    /// 400: the request is wrong for this purchase (for example `purchaseTokenDoesNotMatchPackageName`,
    /// a token from another app: a possible replay). No grant, not retried.
    public static let badRequest = Code(.badRequest)
    /// 401: the access token was refused (the operator must fix the service account).
    public static let unauthorized = Code(.unauthorized)
    /// 403: the service account may not use this app's API (Play Console permissions).
    public static let forbidden = Code(.forbidden)
    /// 404: no such purchase (as yet).
    public static let notFound = Code(.notFound)
    /// 410: the purchase token is no longer valid (the purchase ended more than 60 days ago).
    public static let gone = Code(.gone)
    /// 429: slow down; `retryAfterMs` when Google said how long.
    public static let rateLimited = Code(.rateLimited)
    /// 5xx: Google's trouble; retry with backoff.
    public static let serverError = Code(.serverError)
    /// No answer: connection refused, reset, TLS failure, timeout.
    public static let transport = Code(.transport)
    /// An answer that is not what the API documents.
    public static let invalidResponse = Code(.invalidResponse)
    /// No access token could be had (see the cause: the key, the token endpoint).
    public static let credentials = Code(.credentials)

    public var description: String { wrapped.rawValue }
  }

  public var code: Code
  public var message: String
  /// The HTTP status, when there was an answer.
  public var httpStatus: Int?
  /// Google's `errors[].reason` (`purchaseTokenDoesNotMatchPackageName`, `rateLimitExceeded`, ...).
  public var reason: String?
  /// From `Retry-After`, when Google sent one.
  public var retryAfterMs: Int64?
  public var cause: (any Error)?

  public init(
    code: Code, message: String, httpStatus: Int? = nil, reason: String? = nil, retryAfterMs: Int64? = nil,
    cause: (any Error)? = nil
  ) {
    self.code = code
    self.message = message
    self.httpStatus = httpStatus
    self.reason = reason
    self.retryAfterMs = retryAfterMs
    self.cause = cause
  }

  /// Whether the same call may succeed later by itself. Never a reason to revoke anything.
  public var isRetryable: Bool { code == .rateLimited || code == .serverError || code == .transport }

  /// A token submitted for another app than the one asked about: possibly a replayed purchase.
  public var isPossibleReplay: Bool { reason == "purchaseTokenDoesNotMatchPackageName" }

  public var description: String {
    var text = "Android Publisher API \(code): \(message)"
    if let httpStatus { text += " (HTTP \(httpStatus)" + (reason.map { ", \($0)" } ?? "") + ")" }
    return text
  }
}
