import GRPCCore
import TollgateCallers
import TollgateContract
import TollgateServer

/// The support and admin methods (`admin` scope, checked by `CallerInterceptor`): each asks the
/// handler's `AdminHandler`, the one the fast port asks. A replica that serves no admin calls
/// (`handler.admin` is nil) answers UNAVAILABLE.
extension EntitlementsGRPCService {
  func admin() throws(RPCError) -> any AdminHandler {
    guard let admin = handler.admin else { throw GRPCStatusMapping.rpcError(.noAdmin) }
    return admin
  }

  /// Asks `call` of the admin handler for the checked caller and answers its response, or fails
  /// with its error.
  private func answer<Response: ResponseWithError>(
    _ call: (any AdminHandler, CallerIdentity) async -> Response
  ) async throws(RPCError) -> Response {
    let caller = try Self.caller()
    let response = await call(try admin(), caller)
    try GRPCStatusMapping.check(response)
    return response
  }

  func lookUp(request: Tollgate_V1_LookUpRequest, context: ServerContext) async throws -> Tollgate_V1_LookUpResponse {
    try await answer { await $0.lookUp(request, caller: $1) }
  }

  func getTimeline(
    request: Tollgate_V1_GetTimelineRequest, context: ServerContext
  ) async throws -> Tollgate_V1_GetTimelineResponse {
    try await answer { await $0.getTimeline(request, caller: $1) }
  }

  func explain(request: Tollgate_V1_ExplainRequest, context: ServerContext) async throws -> Tollgate_V1_ExplainResponse
  {
    try await answer { await $0.explain(request, caller: $1) }
  }

  func grant(request: Tollgate_V1_GrantRequest, context: ServerContext) async throws -> Tollgate_V1_GrantResponse {
    try await answer { await $0.grant(request, caller: $1) }
  }

  func revoke(request: Tollgate_V1_RevokeRequest, context: ServerContext) async throws -> Tollgate_V1_RevokeResponse {
    try await answer { await $0.revoke(request, caller: $1) }
  }

  func reverify(
    request: Tollgate_V1_ReverifyRequest, context: ServerContext
  ) async throws -> Tollgate_V1_ReverifyResponse {
    try await answer { await $0.reverify(request, caller: $1) }
  }

  func eraseUser(
    request: Tollgate_V1_EraseUserRequest, context: ServerContext
  ) async throws -> Tollgate_V1_EraseUserResponse {
    try await answer { await $0.eraseUser(request, caller: $1) }
  }
}
