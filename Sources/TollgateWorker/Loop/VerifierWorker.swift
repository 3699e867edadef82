import AsyncHTTPClient
import CoreMetrics
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import TollgateCore
import TollgateStorage

/// `tollgate worker` as a value: the notification endpoints, the inbox loop and the schedule of
/// re-verifications, until graceful shutdown (in-flight items finish; the rest stay queued).
public final class VerifierWorker: Service, Sendable {
  public let storage: SQLiteWorkerStorage
  let processor: ItemProcessor
  let rescheduler: Rescheduler
  let webhooks: WebhookDispatcher
  let stats: WorkerStats
  let metricsText: (@Sendable () -> String)?
  let settings: WorkerSettings
  let host: String
  let port: Int
  let nowMs: @Sendable () -> Int64
  let logger: Logger
  private let boundPort = BoundPort()

  /// Builds the worker; throws on an invalid configuration with every problem listed.
  /// - Parameters:
  ///   - metrics: where the worker's counters go, and how to render them for `GET /metrics`
  ///     (the executable passes a Prometheus registry); without it, no /metrics route.
  public init(
    configuration: WorkerConfiguration, databasePath: String, environment: [String: String] = ProcessInfo.processInfo.environment,
    httpClient: HTTPClient = .shared, metrics: (factory: any MetricsFactory, render: @Sendable () -> String)? = nil,
    nowMs: @escaping @Sendable () -> Int64, logger: Logger
  ) throws {
    stats = WorkerStats(factory: metrics?.factory ?? NOOPMetricsHandler.instance)
    metricsText = metrics?.render
    let problems = configuration.problems(environment: environment)
    guard problems.isEmpty else { throw WorkerConfigurationError(problems: problems) }
    let settings = configuration.worker
    let parts = settings.listen.split(separator: ":")
    guard parts.count >= 2, let port = Int(parts.last!) else {
      throw WorkerConfigurationError(problems: ["worker.listen must be HOST:PORT"])
    }
    self.host = parts.dropLast().joined(separator: ":")
    self.port = port
    self.settings = settings
    self.nowMs = nowMs
    self.logger = logger
    storage = try SQLiteWorkerStorage(path: databasePath, nowMs: nowMs())
    let apps = try configuration.appStore.map {
      try AppleApp(settings: $0, environment: environment, httpClient: httpClient, nowMs: nowMs, logger: logger)
    }
    let gateway = AppleGateway(apps: apps, concurrency: settings.storeConcurrency, nowMs: nowMs, logger: logger)
    let reconciler = Reconciler(storage: storage, catalog: configuration.catalog, settings: settings, nowMs: nowMs, logger: logger)
    let backoff = Backoff(baseMs: settings.backoffBaseMs, maxMs: settings.backoffMaxMs)
    let refresher = ChainRefresher(gateway: gateway, reconciler: reconciler)
    processor = ItemProcessor(
      gateway: gateway, refresher: refresher, storage: storage, backoff: backoff, environment: environment, stats: stats,
      nowMs: nowMs, logger: logger)
    rescheduler = Rescheduler(
      gateway: gateway, refresher: refresher, storage: storage, backoff: backoff, stats: stats, nowMs: nowMs,
      logger: logger)
    webhooks = WebhookDispatcher(
      endpoints: configuration.webhooks,
      stats: stats,
      secrets: Dictionary(configuration.webhooks.map { ($0.url, Array((environment[$0.secretEnv] ?? "").utf8)) }) { a, _ in a },
      storage: storage, httpClient: httpClient, backoff: backoff, pollMs: settings.pollMs, nowMs: nowMs, logger: logger)
  }

  /// The HTTP port, once listening (useful with port 0).
  public func listeningPort() async -> Int { await boundPort.value() }

  public func run() async throws {
    let router = Router()
    NotificationRoutes.add(to: router, storage: storage, nowMs: nowMs, logger: logger)
    router.get("/health") { _, _ -> Response in
      let counts = (try? await self.storage.inboxCounts()) ?? [:]
      let health: [String: Any] = ["status": "serving", "inbox": counts, "processed": self.stats.json]
      let body = (try? JSONSerialization.data(withJSONObject: health, options: [.sortedKeys])) ?? Data()
      return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
    if let render = metricsText {
      router.get("/metrics") { _, _ -> Response in
        Response(
          status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
          body: .init(byteBuffer: ByteBuffer(string: render())))
      }
    }
    let boundPort = self.boundPort
    let app = Application(
      router: router, configuration: .init(address: .hostname(host, port: port)),
      onServerRunning: { channel in await boundPort.set(channel.localAddress?.port ?? 0) }, logger: logger)
    try await withThrowingDiscardingTaskGroup { group in
      group.addTask { try await app.run() }
      group.addTask { await cancelWhenGracefulShutdown { await self.loop() } }
      group.addTask { await cancelWhenGracefulShutdown { await self.webhooks.run() } }
    }
  }

  /// Processes due inbox items and due subscriptions; sleeps when there is nothing to do.
  func loop() async {
    let clock = ContinuousClock()
    var gaugeUpdatedAt = clock.now - .seconds(10)
    while !Task.isCancelled {
      var worked = false
      do {
        if clock.now - gaugeUpdatedAt > .seconds(5) {
          gaugeUpdatedAt = clock.now
          stats.inboxPending.record((try? await storage.inboxCounts()["pending"]) ?? 0)
        }
        let items = try await storage.claimInbox(nowMs: nowMs(), limit: settings.storeConcurrency * 4, leaseMs: settings.leaseMs)
        worked = !items.isEmpty
        await withTaskGroup(of: Void.self) { group in
          for item in items { group.addTask { await self.processor.process(item) } }
        }
        let due = try await storage.dueSubscriptions(nowMs: nowMs(), limit: settings.storeConcurrency * 4)
        worked = worked || !due.isEmpty
        await withTaskGroup(of: Void.self) { group in
          for subscription in due { group.addTask { await self.rescheduler.reverify(subscription) } }
        }
      } catch {
        logger.error("the worker loop could not read storage", metadata: ["error": "\(error)"])
      }
      if !worked {
        try? await Task.sleep(for: .milliseconds(settings.pollMs))
      }
    }
  }
}

/// The port the HTTP server bound, for callers that asked for port 0.
actor BoundPort {
  private var port: Int?
  private var waiters: [CheckedContinuation<Int, Never>] = []

  func set(_ port: Int) {
    self.port = port
    for waiter in waiters { waiter.resume(returning: port) }
    waiters.removeAll()
  }

  func value() async -> Int {
    if let port { return port }
    return await withCheckedContinuation { waiters.append($0) }
  }
}
