import SwiftProtobuf
import TollgateContract

/// The support and admin calls (methods 6 to 12 of proto/tollgate.proto). Each needs a caller
/// with the `admin` scope (`Config.credentials`); without it they throw `.permissionDenied`. A
/// replica that serves no admin calls throws `.unavailable`. Times are RFC 3339 text in UTC.
///
/// Failover follows the reads and writes rule of `TollgateClient+Failover.swift`: LookUp,
/// GetTimeline and Explain are reads, tried on another replica when their connection dies or a
/// replica answers UNAVAILABLE (it has no admin handler, or its storage is out of reach). Grant,
/// Revoke, Reverify and EraseUser are writes, as SubmitPurchase: sent to another replica only
/// when their connection could not be made. One whose connection died after it was sent fails
/// with `.connectionClosed` or `.deadlineExceeded`: the write may have happened, so read (explain,
/// timeline) before repeating it.
extension TollgateClient {
  /// The store purchases `identifier` names: a transaction or original transaction id, an App
  /// Store order id, a Google Play purchase token or order id (`GPA.…`), an Amazon receipt or user
  /// id. `kind` `.unspecified` tries every kind Tollgate stores. Throws `.invalidArgument` for an
  /// empty or overlong identifier; no match is an empty `matches`, not an error.
  public func lookUp(
    identifier: String, kind: Tollgate_V1_IdentifierKind = .unspecified, timeout: Duration? = nil
  ) async throws -> Tollgate_V1_LookUpResponse {
    let request = Tollgate_V1_LookUpRequest.with {
      $0.identifier = identifier
      $0.kind = kind
    }
    return try await adminRead(.lookUp, request, timeout: timeout)
  }

  /// `userId`'s history, oldest first. Throws `.notFound` for a user Tollgate holds nothing of.
  public func timeline(userId: String, timeout: Duration? = nil) async throws -> Tollgate_V1_GetTimelineResponse {
    let request = Tollgate_V1_GetTimelineRequest.with { $0.userID = userId }
    return try await adminRead(.getTimeline, request, timeout: timeout)
  }

  /// Why `userId` has, or lacks, `entitlement` now: its sources, evidence, rules and recent events.
  public func explain(userId: String, entitlement: String, timeout: Duration? = nil) async throws
    -> Tollgate_V1_ExplainResponse
  {
    let request = Tollgate_V1_ExplainRequest.with {
      $0.userID = userId
      $0.entitlement = entitlement
    }
    return try await adminRead(.explain, request, timeout: timeout)
  }

  /// Grants `entitlement` (one the catalog names) to `userId` until `until` (RFC 3339, after now).
  /// `note` (at most 1 KiB) is kept with the grant; `requestedBy` names the person behind the
  /// caller. Returns the grant id and the user's entitlements after it.
  public func grant(
    userId: String, entitlement: String, until: String, note: String = "", requestedBy: String = "",
    timeout: Duration? = nil
  ) async throws -> Tollgate_V1_GrantResponse {
    let request = Tollgate_V1_GrantRequest.with {
      $0.userID = userId
      $0.entitlement = entitlement
      $0.until = until
      $0.note = note
      $0.requestedBy = requestedBy
    }
    return try await adminWrite(.grant, request, timeout: timeout)
  }

  /// Ends `userId`'s open grants of `entitlement`. Throws `.notFound` when none was open.
  public func revoke(
    userId: String, entitlement: String, note: String = "", requestedBy: String = "", timeout: Duration? = nil
  ) async throws -> Tollgate_V1_RevokeResponse {
    let request = Tollgate_V1_RevokeRequest.with {
      $0.userID = userId
      $0.entitlement = entitlement
      $0.note = note
      $0.requestedBy = requestedBy
    }
    return try await adminWrite(.revoke, request, timeout: timeout)
  }

  /// Asks the worker to verify every store subscription of `userId` again; the answer says how
  /// many were queued.
  public func reverify(userId: String, timeout: Duration? = nil) async throws -> Tollgate_V1_ReverifyResponse {
    let request = Tollgate_V1_ReverifyRequest.with { $0.userID = userId }
    return try await adminWrite(.reverify, request, timeout: timeout)
  }

  /// Deletes what Tollgate holds of `userId` (GDPR erase), or with `dryRun` counts it. Throws
  /// `.notFound` for a user Tollgate holds nothing of.
  public func eraseUser(userId: String, dryRun: Bool, requestedBy: String = "", timeout: Duration? = nil)
    async throws -> Tollgate_V1_EraseUserResponse
  {
    let request = Tollgate_V1_EraseUserRequest.with {
      $0.userID = userId
      $0.dryRun = dryRun
      $0.requestedBy = requestedBy
    }
    return try await adminWrite(.eraseUser, request, timeout: timeout)
  }

  /// A read: a replica's UNAVAILABLE answer is tried on another, as IsSubscriber's is.
  func adminRead<Request: SwiftProtobuf.Message, Response: AdminResponse>(
    _ method: EntitlementsMethod, _ request: Request, timeout: Duration?
  ) async throws -> Response {
    let response: Response = try await call(
      method, request, timeout: timeout, refused: { Self.isUnavailable($0.answeredError) })
    if let failure = TollgateClientError(response.answeredError) { throw failure }
    return response
  }

  /// A write: never sent again once it may have arrived, and an answer is final.
  func adminWrite<Request: SwiftProtobuf.Message, Response: AdminResponse>(
    _ method: EntitlementsMethod, _ request: Request, timeout: Duration?
  ) async throws -> Response {
    let response: Response = try await call(method, request, timeout: timeout)
    if let failure = TollgateClientError(response.answeredError) { throw failure }
    return response
  }
}

/// An admin method's answer: a message with an `error` field (set when the call failed).
protocol AdminResponse: SwiftProtobuf.Message {
  var hasError: Bool { get }
  var error: Tollgate_V1_Error { get }
}

extension AdminResponse {
  /// The answer's error, nil when it has none.
  var answeredError: Tollgate_V1_Error? { hasError ? error : nil }
}

extension Tollgate_V1_LookUpResponse: AdminResponse {}
extension Tollgate_V1_GetTimelineResponse: AdminResponse {}
extension Tollgate_V1_ExplainResponse: AdminResponse {}
extension Tollgate_V1_GrantResponse: AdminResponse {}
extension Tollgate_V1_RevokeResponse: AdminResponse {}
extension Tollgate_V1_ReverifyResponse: AdminResponse {}
extension Tollgate_V1_EraseUserResponse: AdminResponse {}
