import Logging
import TollgateCallers
import TollgateContract
import TollgateCore
import TollgateServer
import TollgateWorker

/// The admin calls of the Entitlements service (methods 6 to 12), behind every door: checks each
/// request's fields, calls the `SupportDesk`, and answers in the proto's terms with RFC 3339
/// times. Errors travel in the response's `error` (design 3.3): a bad field is INVALID_ARGUMENT, a
/// user or grant Tollgate does not hold NOT_FOUND, storage or the App Store out of reach
/// UNAVAILABLE. The caller's admin scope was checked by the door. Who asked is recorded with every
/// write as `"<caller>"` or `"<caller> for <requested_by>"`.
///
/// The service (`EntitlementsResponder.admin`) wraps it so a write is answered once this replica's
/// index has it, with the user's entitlements from there: the caller's next IsSubscriber agrees.
public struct AdminResponder: AdminHandler {
  /// The longest `requested_by`, in UTF-8 bytes.
  public static let maximumRequestedByBytes = 256

  let desk: SupportDesk
  let logger: Logger

  public init(desk: SupportDesk, logger: Logger) {
    self.desk = desk
    self.logger = logger
  }

  public func lookUp(_ request: Tollgate_V1_LookUpRequest, caller: CallerIdentity) async -> Tollgate_V1_LookUpResponse {
    var response = Tollgate_V1_LookUpResponse()
    if case .UNRECOGNIZED(let value) = request.kind {
      response.error = Tollgate_V1_Error(.invalidArgument, "kind \(value) is not an IdentifierKind this server knows")
      return response
    }
    do {
      let result = try await desk.lookUp(request.identifier, kind: request.kind.support)
      response.matches = result.matches.map(Tollgate_V1_PurchaseMatch.init)
      response.notes = result.notes
    } catch {
      response.error = answer(error, "LookUp")
    }
    return response
  }

  public func getTimeline(_ request: Tollgate_V1_GetTimelineRequest, caller: CallerIdentity) async
    -> Tollgate_V1_GetTimelineResponse
  {
    if let problem = Self.problem(userId: request.userID) {
      var response = Tollgate_V1_GetTimelineResponse()
      response.error = problem
      return response
    }
    do {
      return Tollgate_V1_GetTimelineResponse(try await desk.timeline(userId: request.userID))
    } catch {
      var response = Tollgate_V1_GetTimelineResponse()
      response.error = answer(error, "GetTimeline")
      return response
    }
  }

  public func explain(_ request: Tollgate_V1_ExplainRequest, caller: CallerIdentity) async
    -> Tollgate_V1_ExplainResponse
  {
    if let problem = Self.problem(userId: request.userID) ?? Self.problem(entitlement: request.entitlement) {
      var response = Tollgate_V1_ExplainResponse()
      response.error = problem
      return response
    }
    do {
      return Tollgate_V1_ExplainResponse(
        try await desk.explain(userId: request.userID, entitlement: request.entitlement))
    } catch {
      var response = Tollgate_V1_ExplainResponse()
      response.error = answer(error, "Explain")
      return response
    }
  }

  public func grant(_ request: Tollgate_V1_GrantRequest, caller: CallerIdentity) async -> Tollgate_V1_GrantResponse {
    var response = Tollgate_V1_GrantResponse()
    if let problem = Self.problem(userId: request.userID) ?? Self.problem(entitlement: request.entitlement)
      ?? Self.problem(note: request.note) ?? Self.problem(requestedBy: request.requestedBy)
    {
      response.error = problem
      return response
    }
    let untilMs: Int64
    switch until(request.until) {
    case .ms(let value): untilMs = value
    case .refused(let problem):
      response.error = problem
      return response
    }
    do {
      let id = try await desk.grant(
        userId: request.userID, entitlement: request.entitlement, untilMs: untilMs, note: Self.optional(request.note),
        actor: Self.actor(caller, requestedBy: request.requestedBy))
      response.grantID = String(id)
    } catch {
      response.error = answer(error, "Grant")
    }
    return response
  }

  public func revoke(_ request: Tollgate_V1_RevokeRequest, caller: CallerIdentity) async -> Tollgate_V1_RevokeResponse {
    var response = Tollgate_V1_RevokeResponse()
    if let problem = Self.problem(userId: request.userID) ?? Self.problem(entitlement: request.entitlement)
      ?? Self.problem(note: request.note) ?? Self.problem(requestedBy: request.requestedBy)
    {
      response.error = problem
      return response
    }
    do {
      let count = try await desk.revoke(
        userId: request.userID, entitlement: request.entitlement, note: Self.optional(request.note),
        actor: Self.actor(caller, requestedBy: request.requestedBy))
      response.revoked = UInt32(clamping: count)
    } catch {
      response.error = answer(error, "Revoke")
    }
    return response
  }

  public func reverify(_ request: Tollgate_V1_ReverifyRequest, caller: CallerIdentity) async
    -> Tollgate_V1_ReverifyResponse
  {
    var response = Tollgate_V1_ReverifyResponse()
    if let problem = Self.problem(userId: request.userID) {
      response.error = problem
      return response
    }
    do {
      response.subscriptions = UInt32(clamping: try await desk.reverify(userId: request.userID))
    } catch {
      response.error = answer(error, "Reverify")
    }
    return response
  }

  public func eraseUser(_ request: Tollgate_V1_EraseUserRequest, caller: CallerIdentity) async
    -> Tollgate_V1_EraseUserResponse
  {
    if let problem = Self.problem(userId: request.userID) ?? Self.problem(requestedBy: request.requestedBy) {
      var response = Tollgate_V1_EraseUserResponse()
      response.error = problem
      return response
    }
    do {
      let counts = try await desk.erase(
        userId: request.userID, dryRun: request.dryRun, actor: Self.actor(caller, requestedBy: request.requestedBy))
      return Tollgate_V1_EraseUserResponse(counts, dryRun: request.dryRun)
    } catch {
      var response = Tollgate_V1_EraseUserResponse()
      response.dryRun = request.dryRun
      response.error = answer(error, "EraseUser")
      return response
    }
  }

  /// Who asked, as the events record it: the caller's configured name (`anonymous` on a server
  /// without callers), and the person behind it when the request names one.
  static func actor(_ caller: CallerIdentity, requestedBy: String) -> String {
    let name = caller.name ?? "anonymous"
    return requestedBy.isEmpty ? name : "\(name) for \(requestedBy)"
  }

  static func optional(_ text: String) -> String? { text.isEmpty ? nil : text }

  /// `until` as ms: RFC 3339, strictly after now by the deployment's clock.
  func until(_ text: String) -> Until {
    guard !text.isEmpty else { return .refused(Tollgate_V1_Error(.invalidArgument, "until is required")) }
    guard let untilMs = ISO8601Text.ms(text) else {
      return .refused(
        Tollgate_V1_Error(
          .invalidArgument,
          "until \(Self.quoted(text)) is not an RFC 3339 date-time (2026-12-31T00:00:00Z)"))
    }
    let now = desk.nowMs()
    guard untilMs > now else {
      return .refused(
        Tollgate_V1_Error(
          .invalidArgument,
          "until \(ISO8601Text.text(ms: untilMs)) is not after now (\(ISO8601Text.text(ms: now))): "
            + "the grant would already be over"))
    }
    return .ms(untilMs)
  }

  enum Until {
    case ms(Int64)
    case refused(Tollgate_V1_Error)
  }
}
