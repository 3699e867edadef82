import Synchronization
import TollgateCallers
import TollgateContract
import TollgateServer
import TollgateTesting
import TollgateWire

/// An admin handler that records each call (method and caller) and answers from the request, so
/// tests see that the request and the caller arrived whole. `grant` waits until `health` has
/// been called on its `EntitlementsHandler` (`AdminServingHandler.healthCalls`) when `holdGrant`
/// is set: a server that ran admin calls on its event loop would never answer that Health.
final class FakeAdminHandler: AdminHandler {
  struct Call: Equatable, Sendable {
    var method: String
    var caller: String?
  }

  let calls = Mutex<[Call]>([])
  let holdGrant: Bool
  let healthCalls = Atomic<Int>(0)

  init(holdGrant: Bool = false) {
    self.holdGrant = holdGrant
  }

  var recorded: [Call] { calls.withLock { $0 } }

  private func record(_ method: String, _ caller: CallerIdentity) {
    calls.withLock { $0.append(Call(method: method, caller: caller.name)) }
  }

  func lookUp(_ request: Tollgate_V1_LookUpRequest, caller: CallerIdentity) async -> Tollgate_V1_LookUpResponse {
    record("LookUp", caller)
    return .with {
      $0.matches = [
        .with {
          $0.store = .appStore
          $0.matchedAs = request.kind
          $0.transactionID = request.identifier
          $0.userID = "u-of-\(request.identifier)"
          $0.known = true
        }
      ]
      $0.notes = ["asked as \(request.kind)"]
    }
  }

  func getTimeline(_ request: Tollgate_V1_GetTimelineRequest, caller: CallerIdentity) async
    -> Tollgate_V1_GetTimelineResponse
  {
    record("GetTimeline", caller)
    guard request.userID != "nobody" else {
      return .with { $0.error = Tollgate_V1_Error(.notFound, "Tollgate holds nothing of this user") }
    }
    return .with {
      $0.userID = request.userID
      $0.evaluatedAt = "2026-11-27T08:00:00.000Z"
      $0.entries = [
        .with {
          $0.at = "2026-11-01T00:00:00.000Z"
          $0.until = "2026-12-01T00:00:00.000Z"
          $0.kind = "period"
          $0.store = .googlePlay
          $0.source = "history"
        }
      ]
    }
  }

  func explain(_ request: Tollgate_V1_ExplainRequest, caller: CallerIdentity) async -> Tollgate_V1_ExplainResponse {
    record("Explain", caller)
    return .with {
      $0.userID = request.userID
      $0.entitlement = request.entitlement
      $0.active = true
      $0.state = .active
      $0.sources = [
        .with {
          $0.source = "subscription"
          $0.decides = true
          $0.rule = "current_period"
        }
      ]
    }
  }

  func grant(_ request: Tollgate_V1_GrantRequest, caller: CallerIdentity) async -> Tollgate_V1_GrantResponse {
    record("Grant", caller)
    if holdGrant {
      _ = await eventually(timeout: .seconds(30)) { healthCalls.load(ordering: .relaxed) > 0 }
    }
    return .with {
      $0.grantID = "grant-\(request.userID)-\(request.entitlement)"
      $0.entitlements = [
        .with {
          $0.entitlement = request.entitlement
          $0.active = true
          $0.store = .promotional
          $0.productID = "\(request.until)|\(request.note)|\(request.requestedBy)"
        }
      ]
    }
  }

  func revoke(_ request: Tollgate_V1_RevokeRequest, caller: CallerIdentity) async -> Tollgate_V1_RevokeResponse {
    record("Revoke", caller)
    return .with {
      $0.revoked = request.entitlement == "pro" ? 1 : 0
      if request.entitlement != "pro" { $0.error = Tollgate_V1_Error(.notFound, "no open grant") }
    }
  }

  func reverify(_ request: Tollgate_V1_ReverifyRequest, caller: CallerIdentity) async -> Tollgate_V1_ReverifyResponse {
    record("Reverify", caller)
    return .with { $0.subscriptions = UInt32(request.userID.count) }
  }

  func eraseUser(_ request: Tollgate_V1_EraseUserRequest, caller: CallerIdentity) async
    -> Tollgate_V1_EraseUserResponse
  {
    record("EraseUser", caller)
    return .with {
      $0.dryRun = request.dryRun
      $0.subscriptionsUnbound = 2
      $0.grants = 1
      $0.events = 7
      $0.eventsScrubbed = 1
      $0.submissions = 3
      $0.entitlementRecords = 4
    }
  }
}

/// Serves IsSubscriber, GetSubscription and Health from nothing, and the admin calls through
/// `admin` (nil: the replica serves none).
struct AdminServingHandler: EntitlementsHandler {
  let admin: (any AdminHandler)?
  let fake: FakeAdminHandler?

  init(_ fake: FakeAdminHandler?) {
    self.admin = fake
    self.fake = fake
  }

  func isSubscriber(_ request: Tollgate_V1_IsSubscriberRequest) -> Tollgate_V1_IsSubscriberResponse { .init() }

  func getSubscription(_ request: Tollgate_V1_GetSubscriptionRequest) -> Tollgate_V1_GetSubscriptionResponse {
    .with { $0.error = Tollgate_V1_Error(.notFound, "no such user") }
  }

  func submitPurchase(_ request: Tollgate_V1_SubmitPurchaseRequest, caller: CallerIdentity) async
    -> Tollgate_V1_SubmitPurchaseResponse
  {
    .with { $0.status = .pending }
  }

  func getSubmission(_ request: Tollgate_V1_GetSubmissionRequest, caller: CallerIdentity) async
    -> Tollgate_V1_GetSubmissionResponse
  {
    .with { $0.error = Tollgate_V1_Error(.notFound, "no such submission") }
  }

  func health(_ request: Tollgate_V1_HealthRequest) -> Tollgate_V1_HealthResponse {
    fake?.healthCalls.add(1, ordering: .relaxed)
    return .with { $0.status = .serving }
  }
}
