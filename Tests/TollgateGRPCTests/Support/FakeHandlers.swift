import Synchronization
import TollgateCallers
import TollgateContract
import TollgateCore
import TollgateServer

/// Answers as a tiny index would: IsSubscriber is active for user "yes"; user "" is an invalid
/// argument; GetSubscription of "nobody" is NOT_FOUND; SubmitPurchase records its caller and
/// answers PENDING (after `submitDelay`); GetSubmission echoes the caller's name as `user_id`;
/// Health answers `status` (settable).
final class FakeEntitlementsHandler: EntitlementsHandler {
  let status = Mutex<Tollgate_V1_ServingStatus>(.serving)
  /// The callers of each SubmitPurchase the handler was asked, in order.
  let submitters = Mutex<[CallerIdentity]>([])
  let submitDelay: Duration
  let admin: (any AdminHandler)?

  init(admin: (any AdminHandler)? = nil, submitDelay: Duration = .zero) {
    self.admin = admin
    self.submitDelay = submitDelay
  }

  func isSubscriber(_ request: Tollgate_V1_IsSubscriberRequest) -> Tollgate_V1_IsSubscriberResponse {
    var response = Tollgate_V1_IsSubscriberResponse()
    guard !request.userID.isEmpty else {
      response.error = Tollgate_V1_Error(.invalidArgument, "user_id is empty")
      return response
    }
    response.active = request.userID == "yes"
    response.productID = request.entitlement
    return response
  }

  func getSubscription(_ request: Tollgate_V1_GetSubscriptionRequest) -> Tollgate_V1_GetSubscriptionResponse {
    var response = Tollgate_V1_GetSubscriptionResponse()
    if request.userID == "nobody" {
      response.error = Tollgate_V1_Error(.notFound, "no subscription for this user")
      return response
    }
    response.userID = request.userID
    return response
  }

  /// The request id of each SubmitPurchase the door handed over, in order.
  let requestIds = Mutex<[String]>([])

  func submitPurchase(_ request: Tollgate_V1_SubmitPurchaseRequest, caller: CallerIdentity, requestId: RequestID)
    async -> Tollgate_V1_SubmitPurchaseResponse
  {
    requestIds.withLock { $0.append(requestId.value) }
    return await submitPurchase(request, caller: caller)
  }

  func submitPurchase(_ request: Tollgate_V1_SubmitPurchaseRequest, caller: CallerIdentity) async
    -> Tollgate_V1_SubmitPurchaseResponse
  {
    submitters.withLock { $0.append(caller) }
    if submitDelay > .zero { try? await Task.sleep(for: submitDelay) }
    var response = Tollgate_V1_SubmitPurchaseResponse()
    response.submissionID = "s-\(request.userID)"
    response.status = .pending
    return response
  }

  func getSubmission(_ request: Tollgate_V1_GetSubmissionRequest, caller: CallerIdentity) async
    -> Tollgate_V1_GetSubmissionResponse
  {
    var response = Tollgate_V1_GetSubmissionResponse()
    response.submissionID = request.submissionID
    response.userID = caller.name ?? "(anyone)"
    response.status = .pending
    return response
  }

  func health(_ request: Tollgate_V1_HealthRequest) -> Tollgate_V1_HealthResponse {
    var response = Tollgate_V1_HealthResponse()
    response.status = status.withLock { $0 }
    response.indexUsers = 3
    return response
  }
}

/// Records who asked what; Grant of entitlement "unknown" is an invalid argument, Revoke with
/// nothing to revoke NOT_FOUND, everything else succeeds with the caller's name in a field.
final class FakeAdminHandler: AdminHandler {
  let calls = Mutex<[String]>([])

  private func record(_ method: String, _ caller: CallerIdentity) {
    calls.withLock { $0.append("\(method) by \(caller.name ?? "anyone")") }
  }

  func lookUp(_ request: Tollgate_V1_LookUpRequest, caller: CallerIdentity) async -> Tollgate_V1_LookUpResponse {
    record("LookUp", caller)
    var response = Tollgate_V1_LookUpResponse()
    var match = Tollgate_V1_PurchaseMatch()
    match.userID = "owner-of-\(request.identifier)"
    response.matches = [match]
    return response
  }

  func getTimeline(_ request: Tollgate_V1_GetTimelineRequest, caller: CallerIdentity) async
    -> Tollgate_V1_GetTimelineResponse
  {
    record("GetTimeline", caller)
    var response = Tollgate_V1_GetTimelineResponse()
    response.userID = request.userID
    return response
  }

  func explain(_ request: Tollgate_V1_ExplainRequest, caller: CallerIdentity) async -> Tollgate_V1_ExplainResponse {
    record("Explain", caller)
    var response = Tollgate_V1_ExplainResponse()
    response.userID = request.userID
    return response
  }

  func grant(_ request: Tollgate_V1_GrantRequest, caller: CallerIdentity) async -> Tollgate_V1_GrantResponse {
    record("Grant", caller)
    var response = Tollgate_V1_GrantResponse()
    if request.entitlement == "unknown" {
      response.error = Tollgate_V1_Error(.invalidArgument, "the catalog names no entitlement \"unknown\"")
    } else {
      response.grantID = "g-\(caller.name ?? "anyone")"
    }
    return response
  }

  func revoke(_ request: Tollgate_V1_RevokeRequest, caller: CallerIdentity) async -> Tollgate_V1_RevokeResponse {
    record("Revoke", caller)
    var response = Tollgate_V1_RevokeResponse()
    response.error = Tollgate_V1_Error(.notFound, "no open grant")
    return response
  }

  func reverify(_ request: Tollgate_V1_ReverifyRequest, caller: CallerIdentity) async -> Tollgate_V1_ReverifyResponse {
    record("Reverify", caller)
    var response = Tollgate_V1_ReverifyResponse()
    response.subscriptions = 2
    return response
  }

  func eraseUser(_ request: Tollgate_V1_EraseUserRequest, caller: CallerIdentity) async
    -> Tollgate_V1_EraseUserResponse
  {
    record("EraseUser", caller)
    var response = Tollgate_V1_EraseUserResponse()
    response.dryRun = request.dryRun
    return response
  }
}
