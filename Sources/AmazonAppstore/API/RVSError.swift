/// Why `verifyReceiptId` did not return a receipt, classified as Amazon documents its status codes
/// (https://developer.amazon.com/docs/in-app-purchasing/iap-rvs-for-android-apps.html), so the
/// worker can tell "retry later" from "our configuration" from "the store says no".
///
/// Nothing in it holds the shared secret: the request URL is never part of a message.
public struct RVSError: Error, Sendable, CustomStringConvertible {
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private enum Wrapped: String, Hashable, Sendable {
      case invalidReceipt = "invalid_receipt"
      case receiptNoLongerValid = "receipt_no_longer_valid"
      case throttled
      case serverError = "server_error"
      case invalidSharedSecret = "invalid_shared_secret"
      case invalidUserId = "invalid_user_id"
      case transport
      case invalidResponse = "invalid_response"
      case unexpectedStatus = "unexpected_status"
    }
    private let wrapped: Wrapped
    private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

    /// 400: the receipt id is invalid (or not one this app's secret knows). No grant, not retried.
    public static let invalidReceipt = Code(.invalidReceipt)
    /// 410: the receipt is no longer valid: the purchase is over. End access, not retried.
    public static let receiptNoLongerValid = Code(.receiptNoLongerValid)
    /// 429: too many requests; retried with backoff (`retryAfterMs` when Amazon said how long).
    public static let throttled = Code(.throttled)
    /// 500, 503, 504 and any other 5xx: Amazon's trouble; retried with backoff, state unchanged.
    public static let serverError = Code(.serverError)
    /// 496: the shared secret is invalid: the operator must fix the configuration; no user's
    /// state may change because of it.
    public static let invalidSharedSecret = Code(.invalidSharedSecret)
    /// 497: the user id does not own the receipt: a receipt submitted for another Amazon user,
    /// possibly a replay. No grant.
    public static let invalidUserId = Code(.invalidUserId)
    /// No answer: connection refused, reset, TLS failure, timeout.
    public static let transport = Code(.transport)
    /// A 200 whose body is not a JSON object.
    public static let invalidResponse = Code(.invalidResponse)
    /// A status Amazon does not document for RVS (3xx, 401, 404, ...): most likely a wrong base URL.
    public static let unexpectedStatus = Code(.unexpectedStatus)

    /// The stable snake_case name.
    public var description: String { wrapped.rawValue }
  }

  public var code: Code
  /// What happened, without the request URL or the shared secret.
  public var message: String
  /// The HTTP status, when there was an answer.
  public var httpStatus: Int?
  /// From `Retry-After` (delta-seconds), when Amazon sent one.
  public var retryAfterMs: Int64?
  public var cause: (any Error)?

  public init(
    code: Code, message: String, httpStatus: Int? = nil, retryAfterMs: Int64? = nil, cause: (any Error)? = nil
  ) {
    self.code = code
    self.message = message
    self.httpStatus = httpStatus
    self.retryAfterMs = retryAfterMs
    self.cause = cause
  }

  /// Whether the same call may succeed later by itself. Never a reason to revoke anything.
  public var isTransient: Bool {
    code == .throttled || code == .serverError || code == .transport || code == .invalidResponse
  }

  /// Whether the operator must act (the shared secret), rather than the user or time.
  public var needsOperator: Bool { code == .invalidSharedSecret || code == .unexpectedStatus }

  public var description: String {
    "RVS \(code): \(message)" + (httpStatus.map { " (HTTP \($0))" } ?? "")
  }
}
