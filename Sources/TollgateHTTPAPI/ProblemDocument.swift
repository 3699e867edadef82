import Foundation
import Hummingbird
import NIOCore
import TollgateCallers
import TollgateContract
import TollgateCore

/// An error answer of the HTTP door: an RFC 9457 problem document (`application/problem+json`).
/// The one HTTP status table of the door (docs/protocol.md, "Errors"; design 3.3): an application
/// error (`Tollgate_V1_Error`, the same the fast port sends in its Error field), a caller refused
/// by the gate (`CallerRefusal`), or what the door itself refuses (a body it cannot take).
///
/// ```json
/// { "type": "urn:tollgate:problem:permission-denied", "title": "Permission denied", "status": 403,
///   "detail": "caller web may not call SubmitPurchase: it needs the submit scope",
///   "code": "ERROR_CODE_PERMISSION_DENIED" }
/// ```
/// 401 carries `WWW-Authenticate: Bearer realm="tollgate"`; 429 and 503 carry `Retry-After`.
public struct ProblemDocument: HTTPResponseError, Sendable, Hashable {
  public var status: HTTPResponse.Status
  /// `urn:tollgate:problem:<kind>`: what a client branches on, with `code`.
  public var type: String
  public var title: String
  /// For a person; names a configured caller or a field at most, never a key or a receipt.
  public var detail: String
  /// The `ErrorCode` name (`ERROR_CODE_NOT_FOUND`) the other doors would answer; nil for what only
  /// HTTP refuses (415, 413, an unknown route).
  public var code: String?
  /// Seconds, for 429 and 503.
  public var retryAfterSeconds: Int?

  public static let contentType = "application/problem+json"

  public init(
    status: HTTPResponse.Status, kind: String, title: String, detail: String, code: String? = nil,
    retryAfterSeconds: Int? = nil
  ) {
    self.status = status
    self.type = "urn:tollgate:problem:\(kind)"
    self.title = title
    self.detail = detail
    self.code = code
    self.retryAfterSeconds = retryAfterSeconds
  }

  /// An application error, as the handler answered it in a response's `error`.
  public init(_ error: Tollgate_V1_Error) {
    let row = Self.row(error.code)
    // A bug's message may name internals: the caller gets a generic sentence.
    let detail = error.code == .internal || row.status == .internalServerError ? "internal error" : error.message
    // A code this build does not know can only be a bug (handler and door are one build): INTERNAL,
    // as its row says, and a name docs/api/openapi.yaml's `code` enum lists (not its number).
    let code: Tollgate_V1_ErrorCode = if case .UNRECOGNIZED = error.code { .internal } else { error.code }
    self.init(
      status: row.status, kind: row.kind, title: row.title, detail: detail, code: code.name,
      retryAfterSeconds: row.retryAfter)
  }

  /// A caller the gate refused: 401, 403, or 429 with the seconds its source must wait.
  public init(_ refusal: CallerRefusal) {
    switch refusal.kind {
    case .unauthenticated: self.init(Tollgate_V1_Error(.unauthenticated, refusal.message))
    case .permissionDenied: self.init(Tollgate_V1_Error(.permissionDenied, refusal.message))
    case .sourceBlocked(let seconds):
      self.init(Tollgate_V1_Error(.resourceExhausted, refusal.message))
      retryAfterSeconds = max(1, seconds)
    }
  }

  /// A body that does not decode (400), naming the field when one is to blame.
  public static func invalidBody(_ detail: String) -> ProblemDocument {
    ProblemDocument(Tollgate_V1_Error(.invalidArgument, detail))
  }

  /// A request parameter (path or query) that is not valid.
  public static func invalidArgument(_ detail: String) -> ProblemDocument {
    ProblemDocument(Tollgate_V1_Error(.invalidArgument, detail))
  }

  static func unsupportedMediaType(_ received: String?) -> ProblemDocument {
    ProblemDocument(
      status: .unsupportedMediaType, kind: "unsupported-media-type", title: "Unsupported media type",
      detail: "the body must be application/json (got \(Self.quoted(received ?? "none", limit: 64)))")
  }

  static func tooLarge(limit: Int) -> ProblemDocument {
    ProblemDocument(
      status: .contentTooLarge, kind: "payload-too-large", title: "Content too large",
      detail: "the body is over this route's \(limit) bytes")
  }

  /// What Hummingbird itself refuses (an unknown route: 404), and any other status.
  static func http(_ status: HTTPResponse.Status) -> ProblemDocument {
    if status == .notFound {
      return ProblemDocument(
        status: .notFound, kind: "no-such-route", title: "Not found", detail: "no such route (docs/api/openapi.yaml)")
    }
    if status == .contentTooLarge {
      return ProblemDocument(
        status: status, kind: "payload-too-large", title: "Content too large", detail: "the body is too large")
    }
    let kind = status.reasonPhrase.lowercased().split(separator: " ").joined(separator: "-")
    return ProblemDocument(
      status: status, kind: kind.isEmpty ? "http-\(status.code)" : kind, title: status.reasonPhrase,
      detail: status.reasonPhrase)
  }

  /// An error the door did not expect: 500 with a generic detail.
  static let internalError = ProblemDocument(Tollgate_V1_Error(.internal, ""))

  // MARK: The table

  struct Row {
    var status: HTTPResponse.Status
    var kind: String
    var title: String
    var retryAfter: Int?
  }

  /// Design 3.3's HTTP column.
  static func row(_ code: Tollgate_V1_ErrorCode) -> Row {
    switch code {
    case .invalidArgument: Row(status: .badRequest, kind: "invalid-argument", title: "Invalid argument")
    case .notFound: Row(status: .notFound, kind: "not-found", title: "Not found")
    case .unauthenticated: Row(status: .unauthorized, kind: "unauthenticated", title: "Unauthenticated")
    case .permissionDenied: Row(status: .forbidden, kind: "permission-denied", title: "Permission denied")
    case .resourceExhausted:
      Row(status: .tooManyRequests, kind: "resource-exhausted", title: "Resource exhausted", retryAfter: 1)
    case .unavailable: Row(status: .serviceUnavailable, kind: "unavailable", title: "Unavailable", retryAfter: 1)
    case .deadlineExceeded: Row(status: .gatewayTimeout, kind: "deadline-exceeded", title: "Deadline exceeded")
    case .internal, .unspecified, .UNRECOGNIZED:
      Row(status: .internalServerError, kind: "internal", title: "Internal error")
    }
  }

  // MARK: The answer

  private struct Body: Encodable {
    var type: String
    var title: String
    var status: Int
    var detail: String
    var code: String?
  }

  /// The JSON document.
  public var json: Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let body = Body(type: type, title: title, status: status.code, detail: detail, code: code)
    return (try? encoder.encode(body)) ?? Data(#"{"status":500}"#.utf8)
  }

  public var headers: HTTPFields {
    var headers: HTTPFields = [.contentType: Self.contentType]
    if status == .unauthorized { headers[.wwwAuthenticate] = #"Bearer realm="tollgate""# }
    if let retryAfterSeconds { headers[.retryAfter] = "\(retryAfterSeconds)" }
    return headers
  }

  public func response(from request: Request, context: some RequestContext) throws -> Response {
    response
  }

  public var response: Response {
    Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: json)))
  }

  /// `text` quoted, as `StrangerText.loggable` writes what a stranger sent: at most `limit`
  /// scalars, everything outside printable ASCII escaped. Fit to repeat in a detail or a log.
  static func quoted(_ text: some StringProtocol, limit: Int) -> String {
    "\"\(StrangerText.loggable(text, limit: limit))\""
  }

}
