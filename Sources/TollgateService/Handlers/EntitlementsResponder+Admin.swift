import TollgateCallers
import TollgateContract
import TollgateIndex
import TollgateServer
import TollgateStorage

extension EntitlementsResponder {
  /// The support and admin calls every door serves (methods 6 to 12), nil when this replica was
  /// given none: a write is answered once this replica's own index has applied it.
  public var admin: (any AdminHandler)? { feedSyncedAdmin }
}

/// An `AdminHandler` (TollgateSupport's `AdminResponder`) whose writes (Grant, Revoke, EraseUser)
/// are answered only once this replica's index has applied the change feed up to its head, at
/// most 2 s, as GetSubmission's verified answer is: the caller's next IsSubscriber on this replica
/// agrees with what it was told. Grant and Revoke then carry the user's entitlements from that
/// index. Reads and Reverify (which changes no entitlement) pass through.
struct FeedSyncedAdmin: AdminHandler {
  let wrapped: any AdminHandler
  let index: EntitlementIndex
  let follower: ChangeFeedFollower
  let storage: any EntitlementStorage
  let nowMs: @Sendable () -> Int64

  func lookUp(_ request: Tollgate_V1_LookUpRequest, caller: CallerIdentity) async -> Tollgate_V1_LookUpResponse {
    await wrapped.lookUp(request, caller: caller)
  }

  func getTimeline(_ request: Tollgate_V1_GetTimelineRequest, caller: CallerIdentity) async
    -> Tollgate_V1_GetTimelineResponse
  {
    await wrapped.getTimeline(request, caller: caller)
  }

  func explain(_ request: Tollgate_V1_ExplainRequest, caller: CallerIdentity) async -> Tollgate_V1_ExplainResponse {
    await wrapped.explain(request, caller: caller)
  }

  func grant(_ request: Tollgate_V1_GrantRequest, caller: CallerIdentity) async -> Tollgate_V1_GrantResponse {
    var response = await wrapped.grant(request, caller: caller)
    guard !response.hasError else { return response }
    await caughtUp()
    response.entitlements = entitlements(of: request.userID)
    return response
  }

  func revoke(_ request: Tollgate_V1_RevokeRequest, caller: CallerIdentity) async -> Tollgate_V1_RevokeResponse {
    var response = await wrapped.revoke(request, caller: caller)
    guard !response.hasError else { return response }
    await caughtUp()
    response.entitlements = entitlements(of: request.userID)
    return response
  }

  func reverify(_ request: Tollgate_V1_ReverifyRequest, caller: CallerIdentity) async -> Tollgate_V1_ReverifyResponse {
    await wrapped.reverify(request, caller: caller)
  }

  func eraseUser(_ request: Tollgate_V1_EraseUserRequest, caller: CallerIdentity) async
    -> Tollgate_V1_EraseUserResponse
  {
    let response = await wrapped.eraseUser(request, caller: caller)
    if !response.hasError, !request.dryRun { await caughtUp() }
    return response
  }

  /// Waits (at most 2 s) until the index has applied the feed as far as it reaches now; on
  /// storage trouble it answers at once (the write is done; the index catches up by itself).
  private func caughtUp() async {
    guard let head = try? await storage.headSeq() else { return }
    _ = await follower.waitUntilApplied(head, timeout: .seconds(2))
  }

  private func entitlements(of userId: String) -> [Tollgate_V1_EntitlementStatus] {
    UserSummary.entitlements(index.records(for: userId), at: nowMs(), accessLevels: index.accessLevels)
  }
}
