import TollgateContract

/// Which of serve's doors took a call or a connection: the metrics' `door` label.
public enum ServeDoor: String, Sendable, CaseIterable {
  /// The protobuf-c-rpc port (`RPCServer`).
  case fast
  case grpc
  case http
}

/// How a call ended, as the metrics' `outcome` label: `ok`, the code of the error its answer
/// carried (`not_found`, `unauthenticated`, …; the same code on every door), or `failed` when the
/// door could not answer it with a message at all (an undecodable or oversized request, an unknown
/// method, too many calls pending, a deferred call that threw).
public enum CallOutcome: Int, Sendable, CaseIterable {
  case ok
  case invalidArgument
  case notFound
  case unauthenticated
  case permissionDenied
  case resourceExhausted
  case unavailable
  case deadlineExceeded
  case `internal`
  case failed

  public var label: String {
    switch self {
    case .ok: "ok"
    case .invalidArgument: "invalid_argument"
    case .notFound: "not_found"
    case .unauthenticated: "unauthenticated"
    case .permissionDenied: "permission_denied"
    case .resourceExhausted: "resource_exhausted"
    case .unavailable: "unavailable"
    case .deadlineExceeded: "deadline_exceeded"
    case .internal: "internal"
    case .failed: "failed"
    }
  }

  /// The outcome of an answer carrying `code` (an unknown or unspecified code is `internal`).
  public init(_ code: Tollgate_V1_ErrorCode) {
    switch code {
    case .invalidArgument: self = .invalidArgument
    case .notFound: self = .notFound
    case .unauthenticated: self = .unauthenticated
    case .permissionDenied: self = .permissionDenied
    case .resourceExhausted: self = .resourceExhausted
    case .unavailable: self = .unavailable
    case .deadlineExceeded: self = .deadlineExceeded
    case .internal, .unspecified, .UNRECOGNIZED: self = .internal
    }
  }

  /// `ok`, or the code of the response's `error`.
  public init(_ response: some CallResponse) {
    self = response.hasError ? CallOutcome(response.error.code) : .ok
  }
}

/// A response of the `Entitlements` service: every one carries an optional `error`.
public protocol CallResponse {
  var hasError: Bool { get }
  var error: Tollgate_V1_Error { get }
}

extension Tollgate_V1_IsSubscriberResponse: CallResponse {}
extension Tollgate_V1_GetSubscriptionResponse: CallResponse {}
extension Tollgate_V1_SubmitPurchaseResponse: CallResponse {}
extension Tollgate_V1_HealthResponse: CallResponse {}
extension Tollgate_V1_AuthenticateResponse: CallResponse {}
extension Tollgate_V1_GetSubmissionResponse: CallResponse {}
extension Tollgate_V1_LookUpResponse: CallResponse {}
extension Tollgate_V1_GetTimelineResponse: CallResponse {}
extension Tollgate_V1_ExplainResponse: CallResponse {}
extension Tollgate_V1_GrantResponse: CallResponse {}
extension Tollgate_V1_RevokeResponse: CallResponse {}
extension Tollgate_V1_ReverifyResponse: CallResponse {}
extension Tollgate_V1_EraseUserResponse: CallResponse {}
