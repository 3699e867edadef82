extension Tollgate_V1_Error {
  /// An application error: its code (docs/protocol.md, "Errors") and a sentence a caller can act on.
  public init(_ code: Tollgate_V1_ErrorCode, _ message: String) {
    self.init()
    self.code = code
    self.message = message
  }
}

extension Tollgate_V1_ErrorCode {
  /// The value's name in proto/tollgate.proto (`ERROR_CODE_NOT_FOUND`), as the proto3 JSON mapping
  /// writes it: what the gRPC door sends in `tollgate-error-code` and the HTTP door in a problem
  /// document's `code`. A value this build does not know (`UNRECOGNIZED`) has no name: its number,
  /// in decimal, as the JSON mapping writes it too.
  public var name: String {
    switch self {
    case .unspecified: "ERROR_CODE_UNSPECIFIED"
    case .invalidArgument: "ERROR_CODE_INVALID_ARGUMENT"
    case .notFound: "ERROR_CODE_NOT_FOUND"
    case .unauthenticated: "ERROR_CODE_UNAUTHENTICATED"
    case .permissionDenied: "ERROR_CODE_PERMISSION_DENIED"
    case .resourceExhausted: "ERROR_CODE_RESOURCE_EXHAUSTED"
    case .unavailable: "ERROR_CODE_UNAVAILABLE"
    case .deadlineExceeded: "ERROR_CODE_DEADLINE_EXCEEDED"
    case .internal: "ERROR_CODE_INTERNAL"
    case .UNRECOGNIZED(let value): "\(value)"
    }
  }
}
