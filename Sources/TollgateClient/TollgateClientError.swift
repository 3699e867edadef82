import TollgateContract

/// Why a client call failed: a transport problem, a frame-level refusal by the server, or an
/// application error the server put in the response (`Error` in the proto).
public struct TollgateClientError: Error, Sendable, CustomStringConvertible {
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private enum Wrapped: Hashable, Sendable {
      case connectionFailed, connectionClosed, deadlineExceeded, serviceFailed, tooManyPending,
        invalidResponse, invalidArgument, notFound, unauthenticated, permissionDenied,
        resourceExhausted, unavailable, internalError
    }
    private let wrapped: Wrapped
    private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

    /// The server could not be reached.
    public static let connectionFailed = Code(.connectionFailed)
    /// The connection closed before the answer came.
    public static let connectionClosed = Code(.connectionClosed)
    /// No answer within the call's timeout (or the server said DEADLINE_EXCEEDED).
    public static let deadlineExceeded = Code(.deadlineExceeded)
    /// Frame status 1: unknown method, undecodable or oversized request, or a server failure.
    public static let serviceFailed = Code(.serviceFailed)
    /// Frame status 2: too many requests in flight on this connection.
    public static let tooManyPending = Code(.tooManyPending)
    /// The server's answer could not be decoded.
    public static let invalidResponse = Code(.invalidResponse)
    public static let invalidArgument = Code(.invalidArgument)
    public static let notFound = Code(.notFound)
    public static let unauthenticated = Code(.unauthenticated)
    public static let permissionDenied = Code(.permissionDenied)
    public static let resourceExhausted = Code(.resourceExhausted)
    public static let unavailable = Code(.unavailable)
    public static let internalError = Code(.internalError)

    /// Whether retrying the same call later may succeed.
    public var isRetryable: Bool {
      switch wrapped {
      case .connectionFailed, .connectionClosed, .deadlineExceeded, .tooManyPending, .unavailable,
        .resourceExhausted:
        true
      default: false
      }
    }

    public var description: String { "\(wrapped)" }
  }

  public var code: Code
  public var message: String
  public var cause: (any Error)?

  public init(code: Code, message: String, cause: (any Error)? = nil) {
    self.code = code
    self.message = message
    self.cause = cause
  }

  public var description: String {
    if let cause { return "\(code): \(message) (\(cause))" }
    return "\(code): \(message)"
  }

  /// The client error for an application error in a response, or nil when there is none.
  public init?(_ error: Tollgate_V1_Error?) {
    guard let error, error.code != .unspecified else { return nil }
    let code: Code =
      switch error.code {
      case .invalidArgument: .invalidArgument
      case .notFound: .notFound
      case .unauthenticated: .unauthenticated
      case .permissionDenied: .permissionDenied
      case .resourceExhausted: .resourceExhausted
      case .unavailable: .unavailable
      case .deadlineExceeded: .deadlineExceeded
      case .internal, .unspecified, .UNRECOGNIZED: .internalError
      }
    self.init(code: code, message: error.message)
  }
}
