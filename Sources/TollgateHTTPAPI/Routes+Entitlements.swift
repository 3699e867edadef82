import Foundation
import Hummingbird
import Logging
import TollgateCallers
import TollgateContract
import TollgateCore
import TollgateServer

/// What answers the door's routes: the same `EntitlementsHandler` as the fast port's, the same
/// gate, and the body limits. Each route turns its path, query and body into the request message,
/// asks the handler, and answers the response message as JSON, or its `error` as a problem
/// document (`ProblemDocument`, design 3.3).
struct DoorRoutes: Sendable {
  let handler: any EntitlementsHandler
  let gate: CallerGate
  /// `POST /v1/purchases`' body, at most (the fast port's `maxMessageBytes`).
  let maximumPurchaseBodyBytes: Int
  /// The admin routes' bodies, at most.
  let maximumAdminBodyBytes: Int
  let logger: Logger
  /// Where each route's calls are recorded (serve's metrics); nil: nowhere.
  var calls: DoorCallRecorder? = nil

  func respond(_ endpoint: HTTPRoute.Endpoint, _ request: Request, _ context: DoorRequestContext) async throws
    -> Response
  {
    switch endpoint {
    case .isSubscriber: try isSubscriber(context)
    case .getSubscription: try getSubscription(context)
    case .submitPurchase: try await submitPurchase(request, context)
    case .getSubmission: try await getSubmission(context)
    case .health: health()
    case .healthz: healthz()
    case .lookUp: try await lookUp(request, context)
    case .getTimeline: try await getTimeline(context)
    case .explain: try await explain(context)
    case .grant: try await grant(request, context)
    case .revoke: try await revoke(request, context)
    case .reverify: try await reverify(context)
    case .eraseUser: try await eraseUser(request, context)
    }
  }

  func isSubscriber(_ context: DoorRequestContext) throws(ProblemDocument) -> Response {
    var message = Tollgate_V1_IsSubscriberRequest()
    message.userID = try Self.parameter("userId", context)
    message.entitlement = try Self.parameter("entitlement", context)
    let response = handler.isSubscriber(message)
    if response.hasError { throw ProblemDocument(response.error) }
    return ProtoJSON.response(response)
  }

  func getSubscription(_ context: DoorRequestContext) throws(ProblemDocument) -> Response {
    var message = Tollgate_V1_GetSubscriptionRequest()
    message.userID = try Self.parameter("userId", context)
    let response = handler.getSubscription(message)
    if response.hasError { throw ProblemDocument(response.error) }
    return ProtoJSON.response(response)
  }

  /// 202 with `Location: /v1/submissions/{id}` while the worker has not verified it, otherwise 200.
  func submitPurchase(_ request: Request, _ context: DoorRequestContext) async throws(ProblemDocument) -> Response {
    let caller = try context.identity()
    let message = try await ProtoJSON.decode(
      Tollgate_V1_SubmitPurchaseRequest.self, from: request, limit: maximumPurchaseBodyBytes)
    if let refused = gate.refuseSubmission(by: caller) { throw ProblemDocument(refused) }
    let response = await handler.submitPurchase(
      message, caller: caller, requestId: context.requestId ?? .generated())
    if response.hasError { throw ProblemDocument(response.error) }
    guard response.status == .pending else { return ProtoJSON.response(response) }
    let location = "/v1/submissions/" + Self.encodedSegment(response.submissionID)
    return ProtoJSON.response(response, status: .accepted, headers: [.location: location])
  }

  func getSubmission(_ context: DoorRequestContext) async throws(ProblemDocument) -> Response {
    let caller = try context.identity()
    var message = Tollgate_V1_GetSubmissionRequest()
    message.submissionID = try Self.parameter("submissionId", context)
    let response = await handler.getSubmission(message, caller: caller)
    if response.hasError { throw ProblemDocument(response.error) }
    return ProtoJSON.response(response)
  }

  /// The `HealthResponse`; 503 (with it, and `Retry-After`) when NOT_SERVING.
  func health() -> Response {
    let response = handler.health(Tollgate_V1_HealthRequest())
    if response.hasError { return ProblemDocument(response.error).response }
    guard response.status == .notServing else { return ProtoJSON.response(response) }
    return ProtoJSON.response(response, status: .serviceUnavailable, headers: [.retryAfter: "1"])
  }

  /// For load balancers and orchestrators, without a key: `{"status":"SERVING"}` (or `DEGRADED`)
  /// with 200, `NOT_SERVING` with 503. Nothing else of the index is told.
  func healthz() -> Response {
    let response = handler.health(Tollgate_V1_HealthRequest())
    let status: String
    switch response.status {
    case .serving where !response.hasError: status = "SERVING"
    case .degraded where !response.hasError: status = "DEGRADED"
    default: status = "NOT_SERVING"
    }
    return Response(
      status: status == "NOT_SERVING" ? .serviceUnavailable : .ok, headers: [.contentType: ProtoJSON.contentType],
      body: ResponseBody(byteBuffer: .init(string: #"{"status":"\#(status)"}"#)))
  }

  // MARK: Parameters

  /// A path parameter, percent-decoded: a user id may hold `/`, `%`, spaces or any UTF-8 when it
  /// is sent percent-encoded (`encodeURIComponent`). Hummingbird matches routes on the raw path,
  /// so an encoded `/` stays inside its segment.
  static func parameter(_ name: String, _ context: DoorRequestContext) throws(ProblemDocument) -> String {
    guard let raw = context.parameters.get(name) else { throw .invalidArgument("\(name) is missing") }
    // Most ids hold no escape: Foundation's decoding is skipped for them (a hot path's 5%).
    guard raw.utf8.contains(UInt8(ascii: "%")) else { return raw }
    guard let decoded = raw.removingPercentEncoding else {
      throw .invalidArgument("\(name) is not valid percent-encoded UTF-8")
    }
    return decoded
  }

  /// `text` as one path segment: everything but RFC 3986's unreserved characters percent-encoded.
  static func encodedSegment(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
  }

  private static let unreserved = CharacterSet(
    charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
