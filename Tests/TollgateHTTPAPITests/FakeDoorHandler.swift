import Synchronization
import TollgateCallers
import TollgateContract
import TollgateServer

/// An `EntitlementsHandler` for the door's tests: echoes what reached it, so a test sees the
/// decoded path and body, and answers errors for a few user ids:
/// `bad` INVALID_ARGUMENT, `nobody` NOT_FOUND, `down` UNAVAILABLE, `busy` RESOURCE_EXHAUSTED,
/// `boom` INTERNAL (with a message the caller must not see).
final class FakeDoorHandler: EntitlementsHandler {
  /// Every call that reached the handler: "method user-or-id caller".
  let calls = Mutex<[String]>([])
  let healthStatus = Mutex<Tollgate_V1_ServingStatus>(.serving)
  /// The admin side; nil: a replica that serves no admin calls.
  let adminHandler: FakeAdmin?

  init(admin: FakeAdmin? = FakeAdmin()) {
    adminHandler = admin
  }

  var admin: (any AdminHandler)? { adminHandler }

  var recorded: [String] { calls.withLock { $0 } }

  static func error(for userId: String) -> Tollgate_V1_Error? {
    switch userId {
    case "bad": Tollgate_V1_Error(.invalidArgument, "user_id is too long")
    case "nobody": Tollgate_V1_Error(.notFound, "no such user")
    case "down": Tollgate_V1_Error(.unavailable, "the index is not loaded")
    case "busy": Tollgate_V1_Error(.resourceExhausted, "too many pending submissions")
    case "boom": Tollgate_V1_Error(.internal, "secret internals at /var/lib/x")
    default: nil
    }
  }

  func isSubscriber(_ request: Tollgate_V1_IsSubscriberRequest) -> Tollgate_V1_IsSubscriberResponse {
    calls.withLock { $0.append("isSubscriber \(request.userID) \(request.entitlement)") }
    var response = Tollgate_V1_IsSubscriberResponse()
    if let error = Self.error(for: request.userID) {
      response.error = error
      return response
    }
    response.active = true
    response.expiresAtMs = .max
    response.productID = request.entitlement
    response.storeSubscriptionID = request.userID
    return response
  }

  func getSubscription(_ request: Tollgate_V1_GetSubscriptionRequest) -> Tollgate_V1_GetSubscriptionResponse {
    calls.withLock { $0.append("getSubscription \(request.userID)") }
    var response = Tollgate_V1_GetSubscriptionResponse()
    if let error = Self.error(for: request.userID) {
      response.error = error
      return response
    }
    response.userID = request.userID
    var status = Tollgate_V1_EntitlementStatus()
    status.entitlement = "pro"
    status.active = false
    status.expiresAtMs = 1_700_000_000_000
    response.entitlements = [status]
    response.evaluatedAtMs = 1_700_000_000_001
    return response
  }

  /// `verified…` users are VERIFIED at once; others PENDING with an id that needs encoding.
  func submitPurchase(_ request: Tollgate_V1_SubmitPurchaseRequest, caller: CallerIdentity) async
    -> Tollgate_V1_SubmitPurchaseResponse
  {
    calls.withLock { $0.append("submitPurchase \(request.userID) \(caller.name ?? "-")") }
    var response = Tollgate_V1_SubmitPurchaseResponse()
    if let error = Self.error(for: request.userID) {
      response.error = error
      return response
    }
    response.submissionID = "s/\(request.userID) 1"
    response.status = request.userID.hasPrefix("verified") ? .verified : .pending
    return response
  }

  func getSubmission(_ request: Tollgate_V1_GetSubmissionRequest, caller: CallerIdentity) async
    -> Tollgate_V1_GetSubmissionResponse
  {
    calls.withLock { $0.append("getSubmission \(request.submissionID) \(caller.name ?? "-")") }
    var response = Tollgate_V1_GetSubmissionResponse()
    if let error = Self.error(for: request.submissionID) {
      response.error = error
      return response
    }
    response.submissionID = request.submissionID
    response.userID = caller.name ?? "(anyone)"
    response.status = .pending
    return response
  }

  func health(_ request: Tollgate_V1_HealthRequest) -> Tollgate_V1_HealthResponse {
    var response = Tollgate_V1_HealthResponse()
    response.status = healthStatus.withLock { $0 }
    response.indexUsers = 3
    response.version = "test"
    return response
  }
}
