import Hummingbird
import TollgateCallers
import TollgateContract
import TollgateServer

/// The support and admin routes (design 3.4): each needs the `admin` scope (`CallerMiddleware`
/// checks it before anything else), and each is answered by the handler's `AdminHandler`, the one
/// the fast port and gRPC call too. A replica without one answers 503.
extension DoorRoutes {
  /// `GET /v1/lookup?identifier=…&kind=…`: `kind` is the enum value's name
  /// (`IDENTIFIER_KIND_APP_STORE_ORDER_ID`) or its short form (`app_store_order_id`); none: every
  /// kind Tollgate stores.
  func lookUp(_ request: Request, _ context: DoorRequestContext) async throws(ProblemDocument) -> Response {
    let (admin, caller) = try admin(context)
    let query = request.uri.queryParameters
    guard let identifier = query["identifier"].map(String.init), !identifier.isEmpty else {
      throw .invalidArgument("identifier is missing (GET /v1/lookup?identifier=…)")
    }
    var message = Tollgate_V1_LookUpRequest()
    message.identifier = identifier
    if let kind = query["kind"], !kind.isEmpty { message.kind = try Self.identifierKind(String(kind)) }
    let response = await admin.lookUp(message, caller: caller)
    if response.hasError { throw ProblemDocument(response.error) }
    return ProtoJSON.response(response)
  }

  func getTimeline(_ context: DoorRequestContext) async throws(ProblemDocument) -> Response {
    let (admin, caller) = try admin(context)
    var message = Tollgate_V1_GetTimelineRequest()
    message.userID = try Self.parameter("userId", context)
    let response = await admin.getTimeline(message, caller: caller)
    if response.hasError { throw ProblemDocument(response.error) }
    return ProtoJSON.response(response)
  }

  func explain(_ context: DoorRequestContext) async throws(ProblemDocument) -> Response {
    let (admin, caller) = try admin(context)
    var message = Tollgate_V1_ExplainRequest()
    message.userID = try Self.parameter("userId", context)
    message.entitlement = try Self.parameter("entitlement", context)
    let response = await admin.explain(message, caller: caller)
    if response.hasError { throw ProblemDocument(response.error) }
    return ProtoJSON.response(response)
  }

  /// `POST /v1/users/{userId}/grants` with a `GrantRequest` body (`entitlement`, `until`, `note`,
  /// `requestedBy`); the path's user wins over a `userId` in the body. 201.
  func grant(_ request: Request, _ context: DoorRequestContext) async throws(ProblemDocument) -> Response {
    let (admin, caller) = try admin(context)
    let userId = try Self.parameter("userId", context)
    var message = try await ProtoJSON.decode(Tollgate_V1_GrantRequest.self, from: request, limit: maximumAdminBodyBytes)
    message.userID = userId
    let response = await admin.grant(message, caller: caller)
    if response.hasError { throw ProblemDocument(response.error) }
    return ProtoJSON.response(response, status: .created)
  }

  /// `DELETE /v1/users/{userId}/grants/{entitlement}?note=…&requestedBy=…`: 404 when none was open.
  func revoke(_ request: Request, _ context: DoorRequestContext) async throws(ProblemDocument) -> Response {
    let (admin, caller) = try admin(context)
    let query = request.uri.queryParameters
    var message = Tollgate_V1_RevokeRequest()
    message.userID = try Self.parameter("userId", context)
    message.entitlement = try Self.parameter("entitlement", context)
    message.note = query["note"].map(String.init) ?? ""
    message.requestedBy = query["requestedBy"].map(String.init) ?? ""
    let response = await admin.revoke(message, caller: caller)
    if response.hasError { throw ProblemDocument(response.error) }
    return ProtoJSON.response(response)
  }

  /// `POST /v1/users/{userId}/reverify`, no body: 202 (the worker reads the stores again).
  func reverify(_ context: DoorRequestContext) async throws(ProblemDocument) -> Response {
    let (admin, caller) = try admin(context)
    var message = Tollgate_V1_ReverifyRequest()
    message.userID = try Self.parameter("userId", context)
    let response = await admin.reverify(message, caller: caller)
    if response.hasError { throw ProblemDocument(response.error) }
    return ProtoJSON.response(response, status: .accepted)
  }

  /// `DELETE /v1/users/{userId}?dryRun=true&requestedBy=…`: erases (or, dry, counts) what
  /// Tollgate holds of the user.
  func eraseUser(_ request: Request, _ context: DoorRequestContext) async throws(ProblemDocument) -> Response {
    let (admin, caller) = try admin(context)
    let query = request.uri.queryParameters
    var message = Tollgate_V1_EraseUserRequest()
    message.userID = try Self.parameter("userId", context)
    message.requestedBy = query["requestedBy"].map(String.init) ?? ""
    switch query["dryRun"].map({ $0.lowercased() }) {
    case nil, "false", "0": message.dryRun = false
    case "true", "1", "": message.dryRun = true
    default: throw .invalidArgument("dryRun must be true or false")
    }
    let response = await admin.eraseUser(message, caller: caller)
    if response.hasError { throw ProblemDocument(response.error) }
    return ProtoJSON.response(response)
  }

  /// The admin handler and the caller; 503 on a replica that serves no admin calls.
  private func admin(_ context: DoorRequestContext) throws(ProblemDocument) -> (any AdminHandler, CallerIdentity) {
    let caller = try context.identity()
    guard let admin = handler.admin else { throw ProblemDocument(.noAdmin) }
    return (admin, caller)
  }

  /// `IDENTIFIER_KIND_…` or its short form, in any case, through the proto's own enum names.
  static func identifierKind(_ text: String) throws(ProblemDocument) -> Tollgate_V1_IdentifierKind {
    let upper = text.uppercased()
    let refused = ProblemDocument.invalidArgument(
      "kind \(ProblemDocument.quoted(text, limit: 64)) is not an identifier kind (app_store_transaction_id, "
        + "app_store_original_transaction_id, app_store_order_id, google_play_purchase_token, google_play_order_id, "
        + "amazon_receipt_id, amazon_user_id)")
    guard !upper.isEmpty, upper.utf8.count <= 64, upper.allSatisfy({ $0 == "_" || ("A"..."Z").contains($0) }) else {
      throw refused
    }
    let name = upper.hasPrefix("IDENTIFIER_KIND_") ? upper : "IDENTIFIER_KIND_" + upper
    guard let decoded = try? Tollgate_V1_LookUpRequest(jsonString: #"{"kind":"\#(name)"}"#),
      case let kind = decoded.kind, kind != .unspecified || name == "IDENTIFIER_KIND_UNSPECIFIED"
    else { throw refused }
    return kind
  }
}
