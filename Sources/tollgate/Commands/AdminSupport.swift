import ArgumentParser
import Foundation
import Logging
import TollgateCallers
import TollgateClient
import TollgateSupport
import TollgateWorker

/// Where `lookup`, `timeline` and `erase-user` run: on a service (--server, through
/// `TollgateClient`), or on the database here through the same `AdminResponder` a service runs
/// (so both print the same answer). A response's error is thrown as a `TollgateClientError`
/// either way.
enum AdminBackend {
  case remote(TollgateClient)
  case local(AdminResponder)

  /// Who the local path records as the caller: `cli for <requested by>`.
  static let localCaller = CallerIdentity(name: "cli", scopes: .admin)

  /// Runs `body` on the service (`remote`) or on the database (`local`); storage is closed after.
  static func using<Result>(
    remote: AdminRemoteOptions, local: AdminOptions, _ body: (AdminBackend) async throws -> Result
  ) async throws -> Result {
    if remote.isRemote { return try await body(.remote(try remote.client())) }
    return try await local.withSupport { responder in try await body(.local(responder)) }
  }

  func lookUp(_ request: Tollgate_V1_LookUpRequest) async throws -> Tollgate_V1_LookUpResponse {
    switch self {
    case .remote(let client): return try await client.lookUp(identifier: request.identifier, kind: request.kind)
    case .local(let responder):
      return try Self.checked(await responder.lookUp(request, caller: Self.localCaller)) {
        $0.hasError ? $0.error : nil
      }
    }
  }

  func timeline(_ request: Tollgate_V1_GetTimelineRequest) async throws -> Tollgate_V1_GetTimelineResponse {
    switch self {
    case .remote(let client): return try await client.timeline(userId: request.userID)
    case .local(let responder):
      return try Self.checked(await responder.getTimeline(request, caller: Self.localCaller)) {
        $0.hasError ? $0.error : nil
      }
    }
  }

  func eraseUser(_ request: Tollgate_V1_EraseUserRequest) async throws -> Tollgate_V1_EraseUserResponse {
    switch self {
    case .remote(let client):
      return try await client.eraseUser(
        userId: request.userID, dryRun: request.dryRun, requestedBy: request.requestedBy)
    case .local(let responder):
      return try Self.checked(await responder.eraseUser(request, caller: Self.localCaller)) {
        $0.hasError ? $0.error : nil
      }
    }
  }

  static func checked<Response>(_ response: Response, _ error: (Response) -> Tollgate_V1_Error?) throws -> Response {
    if let failure = TollgateClientError(error(response)) { throw failure }
    return response
  }
}

extension AdminOptions {
  /// Runs `body` with an `AdminResponder` over the database (never created), the worker's settings
  /// from --config and the deployment's clock, as `withAdmin` opens them. No store is asked: an
  /// App Store order id is looked up in what Tollgate stores only (the service asks Apple when
  /// its --config has an appStore section).
  func withSupport<Result>(_ body: (AdminResponder) async throws -> Result) async throws -> Result {
    let location = try ConfigFile.storage(flag: database, config: config)
    let configuration = try config.map { try ConfigFile.worker($0) }
    let clock = try await Self.clock(following: followClock ?? configuration?.worker.followClockURL)
    let logger = Logger(label: "tollgate.admin")
    let storage = try await location.workerStorage(
      nowMs: clock(), create: false, environment: ProcessInfo.processInfo.environment, logger: logger)
    return try await StorageLifetime.using(storage) { storage in
      let desk = SupportDesk(
        storage: storage, settings: configuration?.worker ?? WorkerSettings(), nowMs: clock, logger: logger)
      return try await body(AdminResponder(desk: desk, logger: logger))
    }
  }
}
