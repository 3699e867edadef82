import AmazonGateway
import AppStoreGateway
import Foundation
import GooglePlayGateway
import Logging
import NIOCore
import NIOPosix
import Prometheus
import StoreSimulator
import TollgateClient
import TollgateCore
import TollgateCrypto
import TollgateMetrics
import TollgateService
import TollgateStorage
import TollgateStorageFactory
import TollgateSupport
import TollgateWorker

/// The whole system on one machine: the store simulator, the worker and the service, on one
/// database (an SQLite file in the directory, or the one `database` names: PostgreSQL too), all
/// following the simulator's virtual clock. The production code paths are used as they are; only
/// base URLs and the pinned root differ. For `tollgate demo` and the end-to-end tests; never for
/// production.
public struct LocalStack: Sendable {
  public struct Ports: Sendable {
    public var service: Int
    public var simulator: Int
    public var worker: Int
    /// The worker's `/health` and `/metrics`.
    public var workerAdmin: Int

    public init(service: Int = 0, simulator: Int = 0, worker: Int = 0, workerAdmin: Int = 0) {
      self.service = service
      self.simulator = simulator
      self.worker = worker
      self.workerAdmin = workerAdmin
    }
  }

  public static let bundleId = "com.example.app"
  /// An app the simulator sells but Tollgate is not configured for.
  public static let otherBundleId = "com.example.other"
  public static let premium = "com.example.premium.monthly"
  public static let monthly = "com.example.monthly"
  public static let basic = "com.example.basic.monthly"
  /// The simulated Google Play app, and its one-time product (lifetime access).
  public static let packageName = "com.example.android"
  public static let lifetime = "com.example.lifetime"
  /// The simulated App Store's non-renewing subscription: a month of `premium` from its purchase.
  public static let seasonPass = "com.example.season.pass"
  /// The simulated Amazon Appstore app.
  public static let amazonApp = "com.example.amazon"

  /// The audience the simulator's Pub/Sub pushes carry and the worker expects.
  public static let googlePushAudience = "https://tollgate.demo/notifications/google"

  public let sim: StoreSimulator
  public let worker: VerifierWorker
  public let server: EntitlementServer
  /// The service's storage (the change feed it follows).
  public let storage: any EntitlementStorage
  public let client: TollgateClient
  public let configuration: WorkerConfiguration
  /// The database, as `--database` takes it: the SQLite file's path, or the PostgreSQL URL
  /// (without a password).
  public let databasePath: String
  public let nowMs: @Sendable () -> Int64
  /// The worker's metrics in Prometheus' text format (what `GET /metrics` serves), read afresh.
  public func metricsText() async -> String { await worker.scrapeMetrics() ?? "" }
  /// The variables the stores' secrets are read from (the App Store API key in
  /// `TOLLGATE_DEMO_APPLE_KEY`, ...), for a process a test starts beside the stack with a config
  /// that names them (`serve --config` with an `appStore` section).
  public var storeEnvironment: [String: String] = [:]
  /// The support desk on the worker's storage, when `run` was asked for the service's admin
  /// calls (`serviceAdmin`): what the demo's support console reads.
  public var desk: SupportDesk?

  /// The demo catalog: three monthly products in one group; premium ones unlock `premium` and
  /// `basic`, the basic one `basic`.
  public static func catalog(transferPolicy: TransferPolicy = .keepWithOriginalOwner) -> ProductCatalog {
    ProductCatalog(
      apps: [
        AppConfig(id: "ios", store: .appStore, bundleId: bundleId),
        AppConfig(id: "android", store: .googlePlay, packageName: packageName),
        AppConfig(id: "amazon", store: .amazon, amazonAppId: amazonApp),
      ],
      entitlements: [EntitlementDefinition(id: "premium"), EntitlementDefinition(id: "basic")],
      products: [
        // The same product ids in both stores (the simulator's defaults): one row each.
        ProductConfig(productId: premium, entitlements: ["premium", "basic"]),
        ProductConfig(productId: monthly, entitlements: ["premium", "basic"]),
        ProductConfig(productId: basic, entitlements: ["basic"]),
        ProductConfig(productId: lifetime, entitlements: ["premium", "basic"], duration: .lifetime),
        ProductConfig(
          productId: seasonPass, entitlements: ["premium"], duration: .duration(CalendarDuration(months: 1))),
      ],
      subscriptionGroups: [
        SubscriptionGroup(
          id: "21000001", store: .appStore,
          products: [
            .init(productId: premium, level: 1), .init(productId: monthly, level: 2), .init(productId: basic, level: 3),
          ])
      ],
      transferPolicy: transferPolicy)
  }

  /// Starts the three parts in `directory` (the simulator's signing chain lives there, and the
  /// database unless `database` names one: created when missing, its password, if any, in
  /// `environment`), runs `body` against them and stops them all, whether `body` returns or throws.
  /// The worker and the service run as child tasks of this call; their storages are closed at
  /// the end.
  public static func run<Result>(
    directory: String, database: StorageLocation? = nil, ports: Ports = Ports(),
    transferPolicy: TransferPolicy = .keepWithOriginalOwner,
    appEnvironment: String = "sandbox", allowSandbox: Bool = false, webhooks: [WebhookSettings] = [],
    environment extraEnvironment: [String: String] = [:], configure: (inout WorkerSettings) -> Void = { _ in },
    googlePlay: (inout GooglePlayAppSettings) -> Void = { _ in },
    catalog adjustCatalog: (inout ProductCatalog) -> Void = { _ in },
    clockBehindStoreMs: Int64 = 0, serviceAdmin: Bool = false, logger: Logger,
    _ body: (LocalStack) async throws -> Result
  ) async throws -> Result {
    let key = try P256PrivateKey.generate()
    let workerPort = ports.worker == 0 ? try await freePort() : ports.worker
    var simConfig = StoreSimulator.Config.defaults
    simConfig.port = ports.simulator
    simConfig.dataDirectory = directory + "/storesim"
    simConfig.notificationRetryDelaysMs = [200, 500, 1_000]
    simConfig.apple.apps[0].apiKey = .init(keyId: "DEMOKEY", issuerId: "DEMO-ISSUER", publicKeyPEM: try publicPEM(key))
    simConfig.apple.apps[0].notificationURL = "http://127.0.0.1:\(workerPort)/notifications/apple/v2"
    // Another company's app in the same store: its receipts must be refused.
    simConfig.apple.apps.append(.init(bundleId: otherBundleId, appAppleId: 987_654_321))
    simConfig.google.apps[0].notificationURL = "http://127.0.0.1:\(workerPort)/notifications/google"
    simConfig.google.apps[0].pushAudience = googlePushAudience
    let sim = try await StoreSimulator.start(config: simConfig, logger: logger)
    do {
      let root = directory + "/apple-root.cer"
      // Owner-only, as every file Tollgate makes (issue 25 item 7).
      guard
        FileManager.default.createFile(
          atPath: root, contents: Data(sim.rootCertificate.der), attributes: [.posixPermissions: 0o600])
      else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: root]) }

      var app = AppleAppSettings(bundleId: bundleId)
      app.appAppleId = simConfig.apple.apps[0].appAppleId
      app.environment = appEnvironment
      app.allowSandbox = allowSandbox
      app.apiKeyId = "DEMOKEY"
      app.apiIssuerId = "DEMO-ISSUER"
      app.apiPrivateKeyEnv = "TOLLGATE_DEMO_APPLE_KEY"
      app.apiBaseURL = appEnvironment == "sandbox" ? sim.baseURL + "/sandbox" : sim.baseURL
      app.sandboxAPIBaseURL = sim.baseURL + "/sandbox"
      app.verifyReceiptURL = sim.baseURL + "/verifyReceipt"
      app.sandboxVerifyReceiptURL = sim.baseURL + "/sandbox/verifyReceipt"
      app.rootCertificates = [root]
      var settings = WorkerSettings()
      settings.listen = "127.0.0.1:\(workerPort)"
      settings.adminListen = "127.0.0.1:\(ports.workerAdmin)"
      settings.pollMs = 5
      settings.backoffBaseMs = 50
      settings.backoffMaxMs = 400
      configure(&settings)
      var catalog = Self.catalog(transferPolicy: transferPolicy)
      adjustCatalog(&catalog)
      let configuration = WorkerConfiguration(catalog: catalog, worker: settings, webhooks: webhooks)
      let appStoreSettings = AppStoreSettings(apps: [app])
      var android = GooglePlayAppSettings(packageName: packageName)
      android.serviceAccountKeyEnv = "TOLLGATE_DEMO_GOOGLE_KEY"
      android.apiBaseURL = sim.googleAPIBaseURL
      android.tokenURI = sim.googleTokenURI
      android.jwksURL = sim.googleJWKSURL
      android.pushAudience = googlePushAudience
      android.pushServiceAccount = simConfig.google.apps[0].pushServiceAccount
      android.licensingKey = sim.googleLicensingKeyBase64
      googlePlay(&android)
      let googlePlaySettings = GooglePlaySettings(apps: [android])
      var amazonApp = AmazonAppSettings(appPackageName: Self.amazonApp)
      amazonApp.sharedSecretEnv = "TOLLGATE_DEMO_AMAZON_SECRET"
      amazonApp.rvsBaseURL = sim.amazonRVSBaseURL
      amazonApp.rvsSandboxBaseURL = sim.amazonRVSSandboxBaseURL
      amazonApp.allowedTopicArns = [try sim.amazonTopicArn()]
      amazonApp.trustedCertificateURLPrefixes = [sim.amazonSNSCertificateURLPrefix]
      let amazonSettings = AmazonSettings(apps: [amazonApp])

      // Follow the simulator's clock: its jumps, plus real time in between (backoff and leases);
      // `clockBehindStoreMs` behind it, to show what clock skew does.
      let following = FollowedClock.following(sim)
      let now: @Sendable () -> Int64 = { following() - clockBehindStoreMs }
      let database = database ?? .sqlite(path: directory + "/tollgate.sqlite")
      let registry = PrometheusCollectorRegistry()
      BuildInfo.register(in: registry)
      let workerEnvironment = extraEnvironment.merging([
        "TOLLGATE_DEMO_APPLE_KEY": try key.pkcs8PEM(), "TOLLGATE_DEMO_GOOGLE_KEY": sim.googleServiceAccountKeyJSON,
        "TOLLGATE_DEMO_AMAZON_SECRET": try sim.amazonSharedSecret(),
      ]) { $1 }
      try configuration.validate(
        environment: workerEnvironment, stores: [appStoreSettings, googlePlaySettings, amazonSettings])
      let workerStorage = try await database.workerStorage(
        nowMs: now(), create: true, connections: StorageConnections.worker(configuration),
        environment: workerEnvironment, logger: logger)
      let result: Result
      do {
        // Built on the storage: a store's call budget (worker.storeRequestsPerMinute) is kept there.
        func budget(_ store: Store) -> StoreCallBudget? {
          StoreCallBudget.configured(for: store, settings: configuration.worker, storage: workerStorage, logger: logger)
        }
        let appStore = try AppStoreGateway(
          settings: appStoreSettings, environment: workerEnvironment, httpClient: .shared,
          concurrency: settings.storeConcurrency, budget: budget(.appStore), nowMs: now, logger: logger)
        let googlePlay = try GooglePlayGateway(
          settings: googlePlaySettings, environment: workerEnvironment, httpClient: .shared,
          concurrency: settings.storeConcurrency, budget: budget(.googlePlay), nowMs: now, logger: logger)
        let amazon = try AmazonGateway(
          settings: amazonSettings, environment: workerEnvironment, httpClient: .shared,
          concurrency: settings.storeConcurrency, budget: budget(.amazon), nowMs: now, logger: logger)
        let worker = try VerifierWorker(
          configuration: configuration, storage: workerStorage, gateways: [appStore, googlePlay, amazon],
          environment: workerEnvironment,
          metrics: (
            DescribedMetricsFactory(
              registry: registry, help: WorkerMetrics.help, durationBuckets: WorkerMetrics.durationBuckets),
            { registry.emitToString() }
          ),
          nowMs: now, logger: logger)
        result = try await withThrowingTaskGroup(of: Void.self) { group in
          group.addTask { try await worker.run() }
          _ = await worker.listeningPort()
          // SNS confirms the subscription first: only once the worker listens.
          try await sim.amazonSetNotificationURL("http://127.0.0.1:\(workerPort)/notifications/amazon")
          let storage = try await database.entitlementStorage(
            nowMs: now(), create: true, environment: workerEnvironment, logger: logger)
          let server: EntitlementServer
          // With `serviceAdmin`, the service answers the admin calls on the worker's storage.
          let desk =
            serviceAdmin
            ? SupportDesk(storage: workerStorage, settings: configuration.worker, nowMs: now, logger: logger) : nil
          var serverConfig = EntitlementServer.Config(host: "127.0.0.1", port: ports.service)
          serverConfig.admin = desk.map { AdminResponder(desk: $0, logger: logger) }
          do {
            server = try await EntitlementServer.start(
              config: serverConfig, storage: storage, nowMs: now, logger: logger)
          } catch {
            await storage.close()
            throw error
          }
          group.addTask { try await server.run() }
          var stack = LocalStack(
            sim: sim, worker: worker, server: server, storage: storage,
            client: TollgateClient(host: "127.0.0.1", port: server.port), configuration: configuration,
            databasePath: database.description, nowMs: now)
          stack.storeEnvironment = workerEnvironment
          stack.desk = desk
          do {
            let result = try await body(stack)
            await stack.stopRunning(&group)
            return result
          } catch {
            await stack.stopRunning(&group)
            throw error
          }
        }
      } catch {
        await workerStorage.close()
        throw error
      }
      await workerStorage.close()
      await sim.stop()
      return result
    } catch {
      await sim.stop()
      throw error
    }
  }

  /// Stops the simulator first (gracefully: nothing calls the worker's listeners after it, and a
  /// Hummingbird server cancelled while a connection comes in traps in NIO), then the service
  /// (its calls drained, then its follower), then the worker, waits for both, and closes the
  /// service's storage (the worker's is closed by `run`).
  private func stopRunning(_ group: inout ThrowingTaskGroup<Void, any Error>) async {
    await sim.stop()
    await client.close()
    await server.shutdown()
    group.cancelAll()
    while true {
      do {
        guard try await group.next() != nil else { break }
      } catch {
        continue  // a part that ended by cancellation
      }
    }
    await storage.close()
  }

  public var workerPort: Int { get async { await worker.listeningPort() } }
  /// The worker's `/health` and `/metrics` port.
  public var workerAdminPort: Int { get async { await worker.adminListeningPort() } }

  /// Waits until IsSubscriber satisfies `condition` (the worker and the change feed are
  /// asynchronous); returns the last answer either way.
  @discardableResult
  public func until(
    _ userId: String, _ entitlement: String = "premium", timeout: Duration = .seconds(10),
    _ condition: (Tollgate_V1_IsSubscriberResponse) -> Bool
  ) async throws -> Tollgate_V1_IsSubscriberResponse {
    let clock = ContinuousClock()
    let start = clock.now
    var last = try await client.isSubscriber(userId: userId, entitlement: entitlement)
    while !condition(last), clock.now - start < timeout {
      try await Task.sleep(for: .milliseconds(20))
      last = try await client.isSubscriber(userId: userId, entitlement: entitlement)
    }
    return last
  }

  /// A loopback TCP port that is free now, for a process to bind later.
  public static func freePort() async throws -> Int {
    // Below the kernel's ephemeral range (32768-60999 on Linux): a port from that range may be
    // taken by any outgoing connection before its user binds it, which a port handed out to be
    // bound later (a worker's, that the simulator posts to) cannot afford.
    for _ in 0..<50 {
      let candidate = Int.random(in: 20_000..<32_000)
      if let channel = try? await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(
        host: "127.0.0.1", port: candidate
      ).get() {
        try await channel.close()
        return candidate
      }
    }
    let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(
      host: "127.0.0.1", port: 0
    ).get()
    let port = channel.localAddress!.port!
    try await channel.close()
    return port
  }

  public static func publicPEM(_ key: P256PrivateKey) throws -> String {
    let der = try key.publicKey.derRepresentation()
    let base64 = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
    return "-----BEGIN PUBLIC KEY-----\n\(base64)\n-----END PUBLIC KEY-----\n"
  }
}
