import AppStoreGateway
import ArgumentParser
import AsyncHTTPClient
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import TollgateCallers
import TollgateContract
import TollgateServer
import TollgateStorageFactory
import TollgateSupport
import TollgateWorker

/// `serve`'s support and admin side (issue 28): the `AdminHandler` every door serves, an
/// `AdminResponder` over the worker's storage opened on serve's own database the way
/// `tollgate grant --database` opens it (never created, no worker lease taken, a PostgreSQL pool
/// of 2), so grants, revocations and erasures work from any replica on SQLite and PostgreSQL. An
/// App Store order id is asked of Apple only when `--config` has an `appStore` section (its API
/// key); otherwise a lookup answers from storage with a note. The worker's settings (`worker` in
/// `--config`) decide what a grant's recompute gives, as the worker's own do.
///
/// A storage that cannot be opened when serve starts (a PostgreSQL server that is down) does not
/// stop serve: the admin calls are answered UNAVAILABLE and the storage is tried again every 5 s
/// until it opens. As a `Service` it also holds the storage and the HTTP client open until serve
/// shuts down; serve lists it before the fast port's server, and a service group stops in reverse
/// order, so they close only after the server drained its calls.
final class ServeAdmin: Service, AdminHandler {
  private struct Opened: Sendable {
    let responder: AdminResponder
    let desk: SupportDesk
    let storage: any WorkerStorage
    let httpClient: HTTPClient?
  }

  static let retryInterval = Duration.seconds(5)

  private let opened = Mutex<Opened?>(nil)
  private let location: StorageLocation
  private let configPath: String?
  private let appStore: AppStoreSettings?
  private let settings: WorkerSettings
  private let clock: ProcessClock
  private let environment: [String: String]
  private let logger: Logger

  private init(
    location: StorageLocation, configPath: String?, appStore: AppStoreSettings?, settings: WorkerSettings,
    clock: ProcessClock, environment: [String: String], logger: Logger
  ) {
    self.location = location
    self.configPath = configPath
    self.appStore = appStore
    self.settings = settings
    self.clock = clock
    self.environment = environment
    self.logger = logger
  }

  /// Reads the `appStore` and `worker` sections of `config` and tries the storage once. A wrong
  /// section, or an `appStore` app the gateway cannot be built for, is an error that stops serve.
  static func open(
    location: StorageLocation, config: String?, clock: ProcessClock, environment: [String: String], logger: Logger
  ) async throws -> ServeAdmin {
    let admin = ServeAdmin(
      location: location, configPath: config,
      appStore: try config.flatMap { try ConfigFile.section(AppStoreSettings.self, of: $0) },
      settings: try config.flatMap { try workerSettings(path: $0) } ?? WorkerSettings(), clock: clock,
      environment: environment, logger: logger)
    try await admin.openStorage()
    return admin
  }

  /// The `worker` section of the config file, if it has one.
  private static func workerSettings(path: String) throws -> WorkerSettings? {
    struct Sections: Decodable { var worker: WorkerSettings? }
    do {
      return try JSONDecoder().decode(Sections.self, from: try ConfigFile.data(path)).worker
    } catch let error as DecodingError {
      throw ValidationError("config file \(path): \(error.readablePath)")
    }
  }

  /// One attempt to open the storage and build the desk on it; false when the storage could not
  /// be opened (logged). Throws when the App Store gateway cannot be built (configuration).
  @discardableResult
  private func openStorage() async throws -> Bool {
    let storage: any WorkerStorage
    do {
      storage = try await location.workerStorage(
        nowMs: clock.nowMs(), create: false, connections: StorageConnections.tool, environment: environment,
        logger: logger)
    } catch {
      logger.error(
        "the admin calls are answered UNAVAILABLE: the worker's storage cannot be opened; trying again",
        metadata: ["error": "\(error)", "retry.interval": "\(Self.retryInterval)"])
      return false
    }
    var gateways: [any StoreGateway] = []
    var httpClient: HTTPClient?
    if let appStore, !appStore.isEmpty {
      let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .singletonConfiguration)
      httpClient = client
      do {
        gateways.append(
          try AppStoreGateway(
            settings: appStore, environment: environment, httpClient: client, concurrency: settings.storeConcurrency,
            budget: StoreCallBudget.configured(for: .appStore, settings: settings, storage: storage, logger: logger),
            nowMs: clock.nowMs, logger: logger))
      } catch {
        try? await client.shutdown()
        await storage.close()
        throw ValidationError("config file \(configPath ?? ""): appStore: \(error)")
      }
    }
    let desk = SupportDesk(
      storage: storage, gateways: StoreGateways(gateways), settings: settings, nowMs: clock.nowMs, logger: logger)
    opened.withLock {
      $0 = Opened(
        responder: AdminResponder(desk: desk, logger: logger), desk: desk, storage: storage, httpClient: httpClient)
    }
    return true
  }

  func run() async throws {
    while opened.withLock({ $0 == nil }) {
      do {
        try await cancelWhenGracefulShutdown { try await Task.sleep(for: Self.retryInterval) }
        try await openStorage()
      } catch is CancellationError {
        break
      } catch {
        // The configuration is wrong (it was right when serve started without the storage).
        logger.error("the admin calls stay off", metadata: ["error": "\(error)"])
        break
      }
    }
    // Cancelled instead (the group ended on an error): close all the same.
    try? await gracefulShutdown()
    guard let open = opened.withLock({ $0 }) else { return }
    await open.storage.close()
    try? await open.httpClient?.shutdown()
  }

  // MARK: AdminHandler

  private var responder: AdminResponder? { opened.withLock { $0?.responder } }

  /// The support desk the console's pages read; nil until the storage opens.
  var desk: SupportDesk? { opened.withLock { $0?.desk } }

  private static let notOpen = Tollgate_V1_Error(
    .unavailable, "this replica cannot open its database for the admin calls yet; retry, or ask another replica")

  func lookUp(_ request: Tollgate_V1_LookUpRequest, caller: CallerIdentity) async -> Tollgate_V1_LookUpResponse {
    guard let responder else { return .with { $0.error = Self.notOpen } }
    return await responder.lookUp(request, caller: caller)
  }

  func getTimeline(_ request: Tollgate_V1_GetTimelineRequest, caller: CallerIdentity) async
    -> Tollgate_V1_GetTimelineResponse
  {
    guard let responder else { return .with { $0.error = Self.notOpen } }
    return await responder.getTimeline(request, caller: caller)
  }

  func explain(_ request: Tollgate_V1_ExplainRequest, caller: CallerIdentity) async -> Tollgate_V1_ExplainResponse {
    guard let responder else { return .with { $0.error = Self.notOpen } }
    return await responder.explain(request, caller: caller)
  }

  func grant(_ request: Tollgate_V1_GrantRequest, caller: CallerIdentity) async -> Tollgate_V1_GrantResponse {
    guard let responder else { return .with { $0.error = Self.notOpen } }
    return await responder.grant(request, caller: caller)
  }

  func revoke(_ request: Tollgate_V1_RevokeRequest, caller: CallerIdentity) async -> Tollgate_V1_RevokeResponse {
    guard let responder else { return .with { $0.error = Self.notOpen } }
    return await responder.revoke(request, caller: caller)
  }

  func reverify(_ request: Tollgate_V1_ReverifyRequest, caller: CallerIdentity) async -> Tollgate_V1_ReverifyResponse {
    guard let responder else { return .with { $0.error = Self.notOpen } }
    return await responder.reverify(request, caller: caller)
  }

  func eraseUser(_ request: Tollgate_V1_EraseUserRequest, caller: CallerIdentity) async
    -> Tollgate_V1_EraseUserResponse
  {
    guard let responder else { return .with { $0.error = Self.notOpen } }
    return await responder.eraseUser(request, caller: caller)
  }
}
