import AppStoreGateway
import ArgumentParser
import AsyncHTTPClient
import Foundation
import Logging
import ServiceLifecycle
import TollgateStorageFactory
import TollgateSupport
import TollgateWorker

/// `serve`'s support and admin side (issue 28): the `AdminResponder` every door serves, over the
/// worker's storage opened on serve's own database the way `tollgate grant --database` opens it
/// (never created, no worker lease taken, a PostgreSQL pool of 2), so grants, revocations and
/// erasures work from any replica on SQLite and PostgreSQL. An App Store order id is asked of
/// Apple only when `--config` has an `appStore` section (its API key); otherwise a lookup
/// answers from storage with a note. The worker's settings (`worker` in `--config`) decide what a
/// grant's recompute gives, as the worker's own do.
///
/// As a `Service` it holds the storage and the HTTP client open until serve shuts down. Serve
/// lists it before the fast port's server, and a service group stops in reverse order, so they
/// close only after the server drained its calls.
struct ServeAdmin: Service {
  let responder: AdminResponder
  private let storage: any WorkerStorage
  private let httpClient: HTTPClient?

  /// The admin side on `location`, or nil when its storage cannot be opened now (a database
  /// server that is down while serve starts): serve then answers the admin calls UNAVAILABLE,
  /// and says so in its log. A `--config` whose `appStore` or `worker` section is wrong is an
  /// error that stops serve.
  static func open(
    location: StorageLocation, config: String?, clock: ProcessClock, environment: [String: String], logger: Logger
  ) async throws -> ServeAdmin? {
    let appStore = try config.flatMap { try ConfigFile.section(AppStoreSettings.self, of: $0) }
    let settings = try config.flatMap { try workerSettings(path: $0) } ?? WorkerSettings()
    let storage: any WorkerStorage
    do {
      storage = try await location.workerStorage(
        nowMs: clock.nowMs(), create: false, connections: StorageConnections.tool, environment: environment,
        logger: logger)
    } catch {
      logger.error(
        "the admin calls are off: the worker's storage cannot be opened; restart serve once the database answers",
        metadata: ["error": "\(error)"])
      return nil
    }
    var gateways: [any StoreGateway] = []
    var httpClient: HTTPClient?
    if let appStore, !appStore.isEmpty {
      let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .singletonConfiguration)
      httpClient = client
      do {
        gateways.append(
          try AppStoreGateway(
            settings: appStore, environment: environment, httpClient: client,
            concurrency: settings.storeConcurrency,
            budget: StoreCallBudget.configured(for: .appStore, settings: settings, storage: storage, logger: logger),
            nowMs: clock.nowMs, logger: logger))
      } catch {
        try? await client.shutdown()
        await storage.close()
        throw ValidationError("config file \(config ?? ""): appStore: \(error)")
      }
    }
    let desk = SupportDesk(
      storage: storage, gateways: StoreGateways(gateways), settings: settings, nowMs: clock.nowMs, logger: logger)
    return ServeAdmin(responder: AdminResponder(desk: desk, logger: logger), storage: storage, httpClient: httpClient)
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

  func run() async throws {
    // Cancelled instead (the group ended on an error): close all the same.
    try? await gracefulShutdown()
    await storage.close()
    try? await httpClient?.shutdown()
  }
}
