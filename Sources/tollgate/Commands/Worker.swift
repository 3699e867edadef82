import AmazonGateway
import AppStoreGateway
import ArgumentParser
import AsyncHTTPClient
import Foundation
import GooglePlayGateway
import Logging
import Prometheus
import ServiceLifecycle
import TollgateCore
import TollgateHTTPListener
import TollgateMetrics
import TollgateStorageFactory
import TollgateWorker

struct Worker: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Run the verifier: submitted purchases, store notifications and scheduled re-verification.")

  @Option(help: "JSON config file (apps, products, entitlements, policies, appStore/googlePlay credentials, worker).")
  var config: String

  @Option(
    help: ArgumentHelp(
      "The database: an SQLite file path (or sqlite:PATH), or postgres://USER@HOST:PORT/DATABASE?sslmode=MODE (default: worker.database from the config); it must exist unless --create.",
      discussion:
        "PostgreSQL's password comes from TOLLGATE_DATABASE_PASSWORD, a file named by TOLLGATE_DATABASE_PASSWORD_FILE, or PGPASSWORD; never the URL."
    ))
  var database: String?

  @Flag(
    help:
      "Create the database if it is missing, or its schema on an empty PostgreSQL database (otherwise a missing one is an error naming it)."
  )
  var create = false

  @Option(help: "HTTP address for store notifications, HOST:PORT (default: worker.listen, else 127.0.0.1:7703).")
  var listen: HostPort?

  @Option(help: "HTTP address for /health and /metrics, HOST:PORT (default: worker.adminListen, else 127.0.0.1:7704).")
  var adminListen: HostPort?

  @Option(
    help: "Follow a store simulator's virtual clock at this URL (demos and tests only; also worker.followClockURL).")
  var followClock: String?

  @OptionGroup var logging: LoggingOptions

  func run() async throws {
    // The storage's location first: a value that names no database Tollgate can open says so
    // before anything else is checked.
    let location = try ConfigFile.storage(flag: database, config: config)
    // Every problem of the file at once (`ConfigProblems`, exit 78), before anything starts.
    let file = try WorkerConfigFile.load(config)
    var configuration = file.configuration
    let (appStoreSettings, googlePlaySettings, amazonSettings) = (file.appStore, file.googlePlay, file.amazon)
    if let listen { configuration.worker.listen = listen.description }
    if let adminListen { configuration.worker.adminListen = adminListen.description }
    if let followClock { configuration.worker.followClockURL = followClock }
    let environment = ProcessInfo.processInfo.environment
    try ConfigProblems.check(
      configuration.problems(environment: environment, stores: [appStoreSettings, googlePlaySettings, amazonSettings]),
      path: config)
    let logger = logging.makeLogger(label: "tollgate.worker")
    let clock = try await ProcessClock.make(followURL: configuration.worker.followClockURL, logger: logger)
    let httpClient = Self.httpClient(for: configuration.worker)
    do {
      // On PostgreSQL, a pool sized for this worker's store calls in flight, webhooks and loop.
      let storage = try await location.workerStorage(
        nowMs: clock.nowMs(), create: create, hint: "check the path, or pass --create to make a new database there",
        connections: StorageConnections.worker(configuration), environment: environment, logger: logger)
      try await StorageLifetime.using(storage) { storage in
        let worker: VerifierWorker
        do {
          // Built on the storage: a store's call budget (worker.storeRequestsPerMinute) is kept there.
          let gateways = try Self.gateways(
            configuration: configuration, stores: (appStoreSettings, googlePlaySettings, amazonSettings),
            storage: storage, httpClient: httpClient, clock: clock, environment: environment, logger: logger)
          worker = try Self.worker(
            configuration: configuration, gateways: gateways, httpClient: httpClient, storage: storage,
            location: location, clock: clock, environment: environment, logger: logger)
        } catch let error as WorkerConfigurationError {
          throw ConfigProblems(path: config, problems: error.problems)
        }
        // SQLite's file modes; nothing on PostgreSQL.
        FileExposure.warn(database: location, logger: logger)
        let group = ServiceGroup(
          configuration: .init(
            services: [.init(service: worker)] + clock.services, gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        try await group.run()
      }
    } catch {
      try? await httpClient.shutdown()
      throw error
    }
    try await httpClient.shutdown()
  }

  /// The worker's HTTP client: one connection per item in flight to each store host
  /// (`VerifierWorker.connectionsPerHost`), so calls that hang (each holds its connection until its
  /// timeout) never queue the other chains' calls in the client's pool (8 per host by default).
  static func httpClient(for settings: WorkerSettings) -> HTTPClient {
    var configuration = HTTPClient.Configuration.singletonConfiguration
    configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = VerifierWorker.connectionsPerHost(
      settings)
    return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
  }

  /// The gateway of each store the file configures, each with its store's call budget on `storage`.
  private static func gateways(
    configuration: WorkerConfiguration, stores: (AppStoreSettings, GooglePlaySettings, AmazonSettings),
    storage: any WorkerStorage, httpClient: HTTPClient, clock: ProcessClock, environment: [String: String],
    logger: Logger
  ) throws -> [any StoreGateway] {
    let (appStoreSettings, googlePlaySettings, amazonSettings) = stores
    func budget(_ store: Store) -> StoreCallBudget? {
      StoreCallBudget.configured(for: store, settings: configuration.worker, storage: storage, logger: logger)
    }
    var gateways: [any StoreGateway] = []
    if !appStoreSettings.isEmpty {
      gateways.append(
        try AppStoreGateway(
          settings: appStoreSettings, environment: environment, httpClient: httpClient,
          concurrency: configuration.worker.storeConcurrency, budget: budget(.appStore), nowMs: clock.nowMs,
          logger: logger))
    }
    if !googlePlaySettings.isEmpty {
      gateways.append(
        try GooglePlayGateway(
          settings: googlePlaySettings, environment: environment, httpClient: httpClient,
          concurrency: configuration.worker.storeConcurrency, budget: budget(.googlePlay), nowMs: clock.nowMs,
          logger: logger))
    }
    if !amazonSettings.isEmpty {
      gateways.append(
        try AmazonGateway(
          settings: amazonSettings, environment: environment, httpClient: httpClient,
          concurrency: configuration.worker.storeConcurrency, budget: budget(.amazon), nowMs: clock.nowMs,
          logger: logger))
    }
    return gateways
  }

  /// The worker on its storage and gateways.
  private static func worker(
    configuration: WorkerConfiguration, gateways: [any StoreGateway], httpClient: HTTPClient,
    storage: any WorkerStorage, location: StorageLocation, clock: ProcessClock, environment: [String: String],
    logger: Logger
  ) throws -> VerifierWorker {
    let registry = PrometheusCollectorRegistry()
    BuildInfo.register(in: registry)
    return try VerifierWorker(
      configuration: configuration, storage: storage, gateways: gateways, environment: environment,
      httpClient: httpClient,
      metrics: (
        DescribedMetricsFactory(
          registry: registry, help: WorkerMetrics.help, durationBuckets: WorkerMetrics.durationBuckets),
        { registry.emitToString() }
      ),
      onListening: {
        [listen = configuration.worker.listen, admin = configuration.worker.adminListen] port, adminPort in
        // Validated above: both parse.
        let notifications = ListenAddress(host: ListenAddress(listen)?.host ?? listen, port: port)
        let admin = ListenAddress(host: ListenAddress(admin)?.host ?? admin, port: adminPort)
        let line =
          "tollgate worker: notifications on \(notifications), health and metrics on \(admin), database \(location)\n"
        FileHandle.standardOutput.write(Data(line.utf8))
      },
      nowMs: clock.nowMs, logger: logger)
  }
}
