import GRPCCore
import TollgateCallers
import TollgateContract

/// The gRPC door's answer for an error, the gRPC column of docs/grpc.md's table (one table for
/// every door, design 3.3): an application error (a response's `error`) and a refused caller
/// become an `RPCError` with the matching status code, the message as the status message, and
/// the fast port's error code in the trailing metadata `tollgate-error-code`
/// (`ERROR_CODE_NOT_FOUND`), so that a client can tell Tollgate's answer from a proxy's.
public enum GRPCStatusMapping {
  /// The trailing metadata key that carries the `ErrorCode` name.
  public static let errorCodeKey = "tollgate-error-code"

  /// The status code for an error code.
  public static func code(_ code: Tollgate_V1_ErrorCode) -> RPCError.Code {
    switch code {
    case .invalidArgument: .invalidArgument
    case .notFound: .notFound
    case .unauthenticated: .unauthenticated
    case .permissionDenied: .permissionDenied
    case .resourceExhausted: .resourceExhausted
    case .unavailable: .unavailable
    case .deadlineExceeded: .deadlineExceeded
    case .internal: .internalError
    case .unspecified, .UNRECOGNIZED: .unknown
    }
  }

  /// The `RPCError` a call fails with for an application error.
  public static func rpcError(_ error: Tollgate_V1_Error) -> RPCError {
    RPCError(code: code(error.code), message: error.message, metadata: [errorCodeKey: .string(error.code.name)])
  }

  /// The `RPCError` for a refused caller: unauthenticated → UNAUTHENTICATED, outside its scopes →
  /// PERMISSION_DENIED, a source out of failed authentications → RESOURCE_EXHAUSTED.
  public static func rpcError(_ refusal: CallerRefusal) -> RPCError {
    let code: Tollgate_V1_ErrorCode =
      switch refusal.kind {
      case .unauthenticated: .unauthenticated
      case .permissionDenied: .permissionDenied
      case .sourceBlocked: .resourceExhausted
      }
    return rpcError(Tollgate_V1_Error(code, refusal.message))
  }

  /// Throws the mapped error when `response` carries one (an `error` with a code; the clients
  /// read an error with code 0 as none, and so does the door); passes otherwise.
  static func check(_ response: some ResponseWithError) throws(RPCError) {
    guard response.hasError, response.error.code != .unspecified else { return }
    throw rpcError(response.error)
  }
}

/// A response message with the proto's `Error error = 1` field.
protocol ResponseWithError {
  var hasError: Bool { get }
  var error: Tollgate_V1_Error { get }
}

extension Tollgate_V1_IsSubscriberResponse: ResponseWithError {}
extension Tollgate_V1_GetSubscriptionResponse: ResponseWithError {}
extension Tollgate_V1_SubmitPurchaseResponse: ResponseWithError {}
extension Tollgate_V1_GetSubmissionResponse: ResponseWithError {}
extension Tollgate_V1_HealthResponse: ResponseWithError {}
extension Tollgate_V1_LookUpResponse: ResponseWithError {}
extension Tollgate_V1_GetTimelineResponse: ResponseWithError {}
extension Tollgate_V1_ExplainResponse: ResponseWithError {}
extension Tollgate_V1_GrantResponse: ResponseWithError {}
extension Tollgate_V1_RevokeResponse: ResponseWithError {}
extension Tollgate_V1_ReverifyResponse: ResponseWithError {}
extension Tollgate_V1_EraseUserResponse: ResponseWithError {}
