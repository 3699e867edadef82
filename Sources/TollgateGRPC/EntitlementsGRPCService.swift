import GRPCCore
import TollgateCallers
import TollgateContract
import TollgateCore
import TollgateServer

/// `service Entitlements` of proto/tollgate.proto over gRPC: each method asks the same
/// `EntitlementsHandler` the fast port asks, for the caller `CallerInterceptor` let in
/// (`CallerContext.identity`), and answers its response; a response with an `error` fails the
/// call with the mapped status (`GRPCStatusMapping`). The admin methods are in
/// `EntitlementsGRPCService+Admin.swift`.
struct EntitlementsGRPCService: Tollgate_V1_Entitlements.SimpleServiceProtocol {
  let handler: any EntitlementsHandler
  let gate: CallerGate

  /// The caller the interceptor let in. None means the call did not pass it: a wiring mistake,
  /// refused rather than answered as anyone.
  static func caller() throws(RPCError) -> CallerIdentity {
    guard let identity = CallerContext.identity else {
      throw RPCError(code: .internalError, message: "the call reached the service without a caller check")
    }
    return identity
  }

  func isSubscriber(
    request: Tollgate_V1_IsSubscriberRequest, context: ServerContext
  ) async throws -> Tollgate_V1_IsSubscriberResponse {
    _ = try Self.caller()
    let response = handler.isSubscriber(request)
    try GRPCStatusMapping.check(response)
    return response
  }

  func getSubscription(
    request: Tollgate_V1_GetSubscriptionRequest, context: ServerContext
  ) async throws -> Tollgate_V1_GetSubscriptionResponse {
    _ = try Self.caller()
    let response = handler.getSubscription(request)
    try GRPCStatusMapping.check(response)
    return response
  }

  func submitPurchase(
    request: Tollgate_V1_SubmitPurchaseRequest, context: ServerContext
  ) async throws -> Tollgate_V1_SubmitPurchaseResponse {
    let caller = try Self.caller()
    if let refused = gate.refuseSubmission(by: caller) { throw GRPCStatusMapping.rpcError(refused) }
    let response = await handler.submitPurchase(
      request, caller: caller, requestId: RequestIDContext.current ?? .generated())
    try GRPCStatusMapping.check(response)
    return response
  }

  func health(request: Tollgate_V1_HealthRequest, context: ServerContext) async throws -> Tollgate_V1_HealthResponse {
    _ = try Self.caller()
    let response = handler.health(request)
    try GRPCStatusMapping.check(response)
    return response
  }

  /// Who the bearer is: its caller name and scopes (all of them, and no name, on a server without
  /// callers). The request's name and key are ignored: on gRPC every call carries its key.
  func authenticate(
    request: Tollgate_V1_AuthenticateRequest, context: ServerContext
  ) async throws -> Tollgate_V1_AuthenticateResponse {
    let caller = try Self.caller()
    var response = Tollgate_V1_AuthenticateResponse()
    response.caller = caller.name ?? ""
    response.scopes = caller.scopes.names
    return response
  }

  func getSubmission(
    request: Tollgate_V1_GetSubmissionRequest, context: ServerContext
  ) async throws -> Tollgate_V1_GetSubmissionResponse {
    let response = await handler.getSubmission(request, caller: try Self.caller())
    try GRPCStatusMapping.check(response)
    return response
  }
}
