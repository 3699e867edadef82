import AsyncHTTPClient
import CoreMetrics
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import TollgateCore

/// `tollgate worker` as a value: the notification endpoints, the inbox loop and the schedule of
/// re-verifications, until graceful shutdown (in-flight items finish; the rest stay queued). It
/// knows its storage and its stores only through their seams (`WorkerStorage`, `StoreGateway`).
public final class VerifierWorker: Service, Sendable {
  public let storage: any WorkerStorage
  let gateways: StoreGateways
  let catalog: ProductCatalog
  let processor: ItemProcessor
  let rescheduler: Rescheduler
  let sweeper: StoreSweeper
  let housekeeping: Housekeeping
  let webhooks: WebhookDispatcher
  let stats: WorkerStats
  /// Which stores are failing now (the outage policy), shared by every read from a store.
  let storeHealth = StoreHealth()
  /// Verified purchases a store waits to hear were delivered (Google's acknowledgement).
  let acknowledgements = PendingAcknowledgements()
  let unacknowledgedUrgent: Gauge
  let metricsText: (@Sendable () -> String)?
  let onListening: (@Sendable (_ port: Int) -> Void)?
  let settings: WorkerSettings
  let host: String
  let port: Int
  let nowMs: @Sendable () -> Int64
  let logger: Logger
  /// One worker per database (`WorkerLease`).
  let lease: WorkerLease
  private let boundPort = BoundPort()

  /// Builds the worker from a configuration its caller has validated (`validate(environment:)`:
  /// the gateways are built from it first); throws if `worker.listen` is not HOST:PORT.
  /// - Parameters:
  ///   - gateways: one per store the worker verifies purchases of.
  ///   - metrics: where the worker's counters go, and how to render them for `GET /metrics`
  ///     (the executable passes a Prometheus registry); without it, no /metrics route.
  ///   - onListening: told the HTTP port once the endpoints listen (useful with port 0).
  ///   - lease: how often the worker lease is renewed, and when another worker's is stale.
  public init(
    configuration: WorkerConfiguration, storage: any WorkerStorage, gateways: [any StoreGateway],
    environment: [String: String] = ProcessInfo.processInfo.environment, httpClient: HTTPClient = .shared,
    metrics: (factory: any MetricsFactory, render: @Sendable () -> String)? = nil,
    onListening: (@Sendable (_ port: Int) -> Void)? = nil, nowMs: @escaping @Sendable () -> Int64, logger: Logger,
    lease: WorkerLease.Config = .defaults
  ) throws {
    let settings = configuration.worker
    let parts = settings.listen.split(separator: ":")
    guard parts.count >= 2, let port = Int(parts.last!) else {
      throw WorkerConfigurationError(problems: ["worker.listen must be HOST:PORT"])
    }
    let gateways = StoreGateways(gateways)
    stats = WorkerStats(factory: metrics?.factory ?? NOOPMetricsHandler.instance, stores: gateways.stores)
    metricsText = metrics?.render
    self.onListening = onListening
    self.host = parts.dropLast().joined(separator: ":")
    self.port = port
    self.settings = settings
    self.nowMs = nowMs
    self.logger = logger
    self.storage = storage
    self.lease = WorkerLease(storage: storage, config: lease, logger: logger)
    self.gateways = gateways
    self.catalog = configuration.catalog
    let backoff = Backoff(baseMs: settings.backoffBaseMs, maxMs: settings.backoffMaxMs)
    let verification = VerificationParts(
      storage: storage, gateways: gateways, catalog: configuration.catalog, settings: settings, backoff: backoff,
      stats: stats, health: storeHealth, acknowledgements: acknowledgements, nowMs: nowMs, logger: logger)
    processor = verification.processor
    rescheduler = verification.rescheduler
    sweeper = StoreSweeper(
      gateways: gateways, refresher: verification.refresher, storage: storage, stats: stats,
      intervalMs: settings.sweepIntervalMs, nowMs: nowMs, logger: logger)
    housekeeping = Housekeeping(
      storage: storage, settings: settings, webhookEndpoints: configuration.webhooks.map(\.url), nowMs: nowMs,
      logger: logger)
    unacknowledgedUrgent = Gauge(
      label: "tollgate_unacknowledged_purchases_near_deadline",
      factory: metrics?.factory ?? NOOPMetricsHandler.instance)
    webhooks = WebhookDispatcher(
      endpoints: configuration.webhooks,
      stats: stats,
      secrets: Dictionary(configuration.webhooks.map { ($0.url, Array((environment[$0.secretEnv] ?? "").utf8)) }) {
        a, _ in a
      },
      storage: storage, httpClient: httpClient, backoff: backoff, pollMs: settings.pollMs, nowMs: nowMs, logger: logger)
  }

  /// The HTTP port, once listening (useful with port 0).
  public func listeningPort() async -> Int { await boundPort.value() }

  public func run() async throws {
    // Before anything else: a second worker on this database refuses to start.
    try await lease.acquire()
    // The admin commands recompute entitlements with the catalog the worker runs with.
    try await storage.saveCatalog(catalog, nowMs: nowMs())
    let router = Router()
    router.add(middleware: StorageGuardMiddleware(storage: storage, logger: logger))
    NotificationIntake.add(
      to: router, routes: gateways.notificationRoutes, storage: storage, stats: stats, nowMs: nowMs, logger: logger)
    router.get("/health") { _, _ -> Response in
      let counts = (try? await self.storage.inboxCounts()) ?? [:]
      let problem = await self.storage.storageProblem()
      var health: [String: Any] = ["status": "serving", "inbox": counts, "processed": self.stats.json]
      let outages = self.storeHealth.outages
      if !outages.isEmpty {
        // Reading from a store is failing: renewing subscribers are kept in by the outage policy.
        let since = outages.map { "\($0.key.rawValue) since \($0.value)" }.sorted().joined(separator: ", ")
        health.merge(
          [
            "status": "degraded", "reason": "store_unreachable: \(since)",
            "storeOutages": Dictionary(uniqueKeysWithValues: outages.map { ($0.key.rawValue, $0.value) }),
          ]
        ) { $1 }
      }
      let acknowledgements = self.acknowledgements.counts(nowMs: self.nowMs())
      if acknowledgements.pending > 0 {
        health["unacknowledged"] = ["pending": acknowledgements.pending, "nearDeadline": acknowledgements.urgent]
      }
      if acknowledgements.urgent > 0 && health["reason"] == nil {
        // Google refunds a purchase left unacknowledged for 3 days: money about to be lost.
        health.merge(
          [
            "status": "degraded",
            "reason": "unacknowledged_purchases: \(acknowledgements.urgent) within a day of the store's deadline",
          ]
        ) { $1 }
      }
      if let problem { health.merge(["status": "not_serving", "reason": problem]) { $1 } }
      let body = (try? JSONSerialization.data(withJSONObject: health, options: [.sortedKeys])) ?? Data()
      return Response(
        status: problem == nil ? .ok : .serviceUnavailable, headers: [.contentType: "application/json"],
        body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
    if let render = metricsText {
      router.get("/metrics") { _, _ -> Response in
        Response(
          status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
          body: .init(byteBuffer: ByteBuffer(string: render())))
      }
    }
    let boundPort = self.boundPort
    let onListening = self.onListening
    let app = Application(
      router: router, configuration: .init(address: .hostname(host, port: port)),
      onServerRunning: { channel in
        let port = channel.localAddress?.port ?? 0
        await boundPort.set(port)
        onListening?(port)
      }, logger: logger)
    try await withThrowingDiscardingTaskGroup { group in
      group.addTask { try await app.run() }
      group.addTask { await cancelWhenGracefulShutdown { await self.loop() } }
      group.addTask { await cancelWhenGracefulShutdown { await self.webhooks.run() } }
      group.addTask { await cancelWhenGracefulShutdown { await self.sweeper.run() } }
      group.addTask { await cancelWhenGracefulShutdown { await self.housekeeping.run() } }
      // Renewed until graceful shutdown, then released; losing it to another worker stops this one.
      group.addTask { try await cancelWhenGracefulShutdown { try await self.lease.keepRenewed() } }
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
          unacknowledgedUrgent.record(acknowledgements.counts(nowMs: nowMs()).urgent)
        }
        let items = try await storage.claimInbox(
          nowMs: nowMs(), limit: settings.storeConcurrency * 4, leaseMs: settings.leaseMs)
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
