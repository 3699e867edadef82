import NIOCore
import SwiftProtobuf
import TollgateCallers
import TollgateContract

/// The support and admin methods (6 to 12) on the fast port. `dispatch` has already checked the
/// caller's `admin` scope (`refusal(of:by:)`, through `CallerOperation` and the gate), so only an
/// admin caller gets here. The calls wait on storage and on the stores, so they are answered
/// off the event loop, as SubmitPurchase is.
extension EntitlementsDispatcher {
  /// Returns the deferred call of admin `method` to the admin handler; without one, appends the
  /// UNAVAILABLE answer to `output`. An undecodable payload throws (`dispatch` answers
  /// SERVICE_FAILED).
  func dispatchAdmin(
    _ method: EntitlementsMethod, requestId: UInt32, payload: ByteBuffer, caller identity: CallerIdentity,
    into output: inout ByteBuffer
  ) throws -> Outcome {
    guard let admin = handler.admin else {
      try output.writeResponseFrame(
        methodIndex: method.rawValue, requestId: requestId, message: Self.errorResponse(for: method, .noAdmin))
      return .answered(.unavailable)
    }
    return .deferred(try Self.adminCall(method, payload, admin: admin, caller: identity))
  }

  /// Decodes the request now (on the event loop: a malformed one is refused at once) and returns
  /// the work that calls the admin handler and encodes its answer.
  static func adminCall(
    _ method: EntitlementsMethod, _ payload: ByteBuffer, admin: any AdminHandler, caller: CallerIdentity
  ) throws -> @Sendable () async throws -> DeferredAnswer {
    switch method {
    case .lookUp:
      let request = try Tollgate_V1_LookUpRequest(serializedBytes: payload.readableBytesSpan)
      return { try await admin.lookUp(request, caller: caller).deferredAnswer() }
    case .getTimeline:
      let request = try Tollgate_V1_GetTimelineRequest(serializedBytes: payload.readableBytesSpan)
      return { try await admin.getTimeline(request, caller: caller).deferredAnswer() }
    case .explain:
      let request = try Tollgate_V1_ExplainRequest(serializedBytes: payload.readableBytesSpan)
      return { try await admin.explain(request, caller: caller).deferredAnswer() }
    case .grant:
      let request = try Tollgate_V1_GrantRequest(serializedBytes: payload.readableBytesSpan)
      return { try await admin.grant(request, caller: caller).deferredAnswer() }
    case .revoke:
      let request = try Tollgate_V1_RevokeRequest(serializedBytes: payload.readableBytesSpan)
      return { try await admin.revoke(request, caller: caller).deferredAnswer() }
    case .reverify:
      let request = try Tollgate_V1_ReverifyRequest(serializedBytes: payload.readableBytesSpan)
      return { try await admin.reverify(request, caller: caller).deferredAnswer() }
    case .eraseUser:
      let request = try Tollgate_V1_EraseUserRequest(serializedBytes: payload.readableBytesSpan)
      return { try await admin.eraseUser(request, caller: caller).deferredAnswer() }
    case .isSubscriber, .getSubscription, .submitPurchase, .health, .authenticate, .getSubmission:
      preconditionFailure("\(method.name) is not an admin method")
    }
  }
}
