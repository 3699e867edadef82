import TollgateCallers
import TollgateContract

/// The support and admin side of the Entitlements service (methods 6 to 12 of proto/tollgate.proto,
/// issue 28): one implementation behind every door (the fast port, gRPC, HTTP/JSON).
///
/// Every door checks the caller's `admin` scope through `CallerGate` (`CallerOperation`) before
/// calling; an implementation never sees a caller without it. `caller` is recorded with the
/// writes (grants, revocations, erasures) as who asked. The methods may wait on storage and on
/// the stores: doors call them off their event loops. They never throw: errors travel in the
/// response's `error` field (INVALID_ARGUMENT, NOT_FOUND, UNAVAILABLE, INTERNAL; docs/protocol.md).
public protocol AdminHandler: Sendable {
  /// The store purchases an identifier names (transaction, order, purchase token, receipt id...).
  func lookUp(_ request: Tollgate_V1_LookUpRequest, caller: CallerIdentity) async -> Tollgate_V1_LookUpResponse
  /// A user's history, oldest first.
  func getTimeline(_ request: Tollgate_V1_GetTimelineRequest, caller: CallerIdentity) async
    -> Tollgate_V1_GetTimelineResponse
  /// Why a user has (or has not) an entitlement now.
  func explain(_ request: Tollgate_V1_ExplainRequest, caller: CallerIdentity) async -> Tollgate_V1_ExplainResponse
  /// Grants an entitlement until a time.
  func grant(_ request: Tollgate_V1_GrantRequest, caller: CallerIdentity) async -> Tollgate_V1_GrantResponse
  /// Ends a user's open grants of an entitlement.
  func revoke(_ request: Tollgate_V1_RevokeRequest, caller: CallerIdentity) async -> Tollgate_V1_RevokeResponse
  /// Asks the worker to verify the user's store subscriptions again.
  func reverify(_ request: Tollgate_V1_ReverifyRequest, caller: CallerIdentity) async -> Tollgate_V1_ReverifyResponse
  /// Deletes what Tollgate holds of a user (or, with `dry_run`, counts it).
  func eraseUser(_ request: Tollgate_V1_EraseUserRequest, caller: CallerIdentity) async
    -> Tollgate_V1_EraseUserResponse
}
