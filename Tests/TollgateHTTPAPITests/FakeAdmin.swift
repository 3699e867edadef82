import SwiftProtobuf
import Synchronization
import TollgateCallers
import TollgateContract
import TollgateServer

/// An `AdminHandler` that records each call (the request's JSON and the caller's name) and
/// answers a fixed message; user `nobody` is NOT_FOUND, `bad` INVALID_ARGUMENT.
final class FakeAdmin: AdminHandler {
  let calls = Mutex<[String]>([])
  var recorded: [String] { calls.withLock { $0 } }

  private func record(_ method: String, _ request: some SwiftProtobuf.Message, _ caller: CallerIdentity) {
    let json = (try? request.jsonString()) ?? "?"
    calls.withLock { $0.append("\(method) \(json) \(caller.name ?? "-")") }
  }

  static func error(_ userId: String) -> Tollgate_V1_Error? {
    switch userId {
    case "nobody": Tollgate_V1_Error(.notFound, "Tollgate holds nothing of this user")
    case "bad": Tollgate_V1_Error(.invalidArgument, "entitlement \"gold\" is not in the catalog")
    default: nil
    }
  }

  func lookUp(_ request: Tollgate_V1_LookUpRequest, caller: CallerIdentity) async -> Tollgate_V1_LookUpResponse {
    record("lookUp", request, caller)
    var response = Tollgate_V1_LookUpResponse()
    var match = Tollgate_V1_PurchaseMatch()
    match.userID = "u1"
    match.transactionID = request.identifier
    response.matches = [match]
    return response
  }

  func getTimeline(_ request: Tollgate_V1_GetTimelineRequest, caller: CallerIdentity) async
    -> Tollgate_V1_GetTimelineResponse
  {
    record("getTimeline", request, caller)
    var response = Tollgate_V1_GetTimelineResponse()
    if let error = Self.error(request.userID) {
      response.error = error
      return response
    }
    response.userID = request.userID
    var entry = Tollgate_V1_TimelineEntry()
    entry.at = "2026-11-27T08:00:00.000Z"
    entry.kind = "purchased"
    response.entries = [entry]
    return response
  }

  func explain(_ request: Tollgate_V1_ExplainRequest, caller: CallerIdentity) async -> Tollgate_V1_ExplainResponse {
    record("explain", request, caller)
    var response = Tollgate_V1_ExplainResponse()
    if let error = Self.error(request.userID) { response.error = error }
    return response
  }

  func grant(_ request: Tollgate_V1_GrantRequest, caller: CallerIdentity) async -> Tollgate_V1_GrantResponse {
    record("grant", request, caller)
    var response = Tollgate_V1_GrantResponse()
    if let error = Self.error(request.entitlement == "gold" ? "bad" : request.userID) {
      response.error = error
      return response
    }
    response.grantID = "g1"
    return response
  }

  func revoke(_ request: Tollgate_V1_RevokeRequest, caller: CallerIdentity) async -> Tollgate_V1_RevokeResponse {
    record("revoke", request, caller)
    var response = Tollgate_V1_RevokeResponse()
    if let error = Self.error(request.userID) {
      response.error = error
      return response
    }
    response.revoked = 1
    return response
  }

  func reverify(_ request: Tollgate_V1_ReverifyRequest, caller: CallerIdentity) async -> Tollgate_V1_ReverifyResponse {
    record("reverify", request, caller)
    var response = Tollgate_V1_ReverifyResponse()
    response.subscriptions = 2
    return response
  }

  func eraseUser(_ request: Tollgate_V1_EraseUserRequest, caller: CallerIdentity) async
    -> Tollgate_V1_EraseUserResponse
  {
    record("eraseUser", request, caller)
    var response = Tollgate_V1_EraseUserResponse()
    response.dryRun = request.dryRun
    response.grants = 3
    return response
  }
}
