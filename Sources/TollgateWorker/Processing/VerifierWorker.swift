import AsyncHTTPClient
import CoreMetrics
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import TollgateCore
import TollgateHTTPListener

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
  /// Which stores are failing now (the outage policy), shared by every read from a store and,
  /// through storage, by every worker on the database.
  let storeHealth: StoreHealth
  /// Verified purchases a store waits to hear were delivered (Google's acknowledgement).
  let acknowledgements = PendingAcknowledgements()
  /// Whether the loop reads the inbox (`/readyz`).
  let drain = InboxDrain()
  let metricsText: (@Sendable () -> String)?
  let onListening: (@Sendable (_ port: Int, _ adminPort: Int) -> Void)?
  let settings: WorkerSettings
  /// Store notifications only (`worker.listen`).
  let listen: ListenAddress
  /// `/health` and `/metrics` (`worker.adminListen`).
  let adminListen: ListenAddress
  let nowMs: @Sendable () -> Int64
  let logger: Logger
  /// One worker per database (`WorkerLease`), when `worker.exclusive` says so.
  let lease: WorkerLease
  /// The singleton jobs' named leases (the sweeps, housekeeping, each webhook endpoint).
  let jobs: SingletonJobs
  let boundPort = BoundPort()
  let adminBoundPort = BoundPort()

  /// Builds the worker from a configuration its caller has validated (`validate(environment:)`:
  /// the gateways are built from it first); throws if `worker.listen` or `worker.adminListen` is
  /// not HOST:PORT.
  /// - Parameters:
  ///   - gateways: one per store the worker verifies purchases of, each built with its store's
  ///     budget on `storage` (`StoreCallBudget.configured`) when `worker.storeRequestsPerMinute`
  ///     gives it one.
  ///   - metrics: where the worker's counters go, and how to render them for `GET /metrics` on
  ///     the admin listener (the executable passes a Prometheus registry); without it, no
  ///     /metrics route.
  ///   - onListening: told the notification port and the admin port once both listen (useful
  ///     with port 0).
  ///   - lease: how often the worker lease is renewed, and when another worker's is stale.
  public init(
    configuration: WorkerConfiguration, storage: any WorkerStorage, gateways: [any StoreGateway],
    environment: [String: String] = ProcessInfo.processInfo.environment, httpClient: HTTPClient = .shared,
    metrics: (factory: any MetricsFactory, render: @Sendable () -> String)? = nil,
    onListening: (@Sendable (_ port: Int, _ adminPort: Int) -> Void)? = nil, nowMs: @escaping @Sendable () -> Int64,
    logger: Logger,
    lease: WorkerLease.Config = .defaults
  ) throws {
    let settings = configuration.worker
    listen = try WorkerConfiguration.listenAddress(settings.listen, key: "worker.listen")
    adminListen = try WorkerConfiguration.listenAddress(settings.adminListen, key: "worker.adminListen")
    let gateways = StoreGateways(gateways)
    stats = WorkerStats(factory: metrics?.factory ?? NOOPMetricsHandler.instance, stores: gateways.stores)
    metricsText = metrics?.render
    self.onListening = onListening
    self.settings = settings
    self.nowMs = nowMs
    self.logger = logger
    self.storage = storage
    storeHealth = StoreHealth(storage: storage, stores: gateways.stores, logger: logger)
    self.lease = WorkerLease(storage: storage, config: lease, logger: logger)
    jobs = SingletonJobs(storage: storage, ttl: lease.staleAfter, renewEvery: lease.heartbeat, logger: logger)
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
    webhooks = WebhookDispatcher(
      endpoints: configuration.webhooks,
      stats: stats,
      // Read once, here (validated before: `WorkerConfiguration.problems`).
      secrets: Dictionary(
        configuration.webhooks.map { ($0.url, Array(((try? $0.secret.value(environment: environment)) ?? "").utf8)) }
      ) { a, _ in a },
      storage: storage, httpClient: httpClient, backoff: backoff, pollMs: settings.pollMs, nowMs: nowMs, logger: logger)
    // Every store call is timed into this worker's metrics.
    for gateway in gateways.all { gateway.callLimiter?.report(to: stats.storeCalls, store: gateway.store) }
  }

  /// The notification port, once listening (useful with port 0); 0 if it could not listen.
  public func listeningPort() async -> Int { await boundPort.value() }

  /// The admin port (`/health`, `/metrics`), once listening (useful with port 0); 0 if it could
  /// not listen.
  public func adminListeningPort() async -> Int { await adminBoundPort.value() }

  public func run() async throws {
    // Before anything else: with `worker.exclusive`, a second worker on this database refuses to
    // start; without it, this one refuses to start beside a worker that runs exclusively.
    if settings.exclusive {
      try await lease.acquire()
    } else {
      try await lease.refuseIfExclusiveHolder()
    }
    // The outages other workers recorded apply from the first item on (then every `pollMs`).
    await storeHealth.refresh()
    // The admin commands recompute entitlements with the catalog the worker runs with.
    try await storage.saveCatalog(catalog, nowMs: nowMs())
    try await runParts()
  }

  /// How many items and checks the loop keeps in flight per store call permit
  /// (`worker.storeConcurrency`): most of them wait for their store's permit, and a call that
  /// hangs holds one of them only.
  static let inFlightPerPermit = 16

  /// How many items (and checks) whose store call ran past its overtime the loop keeps beside
  /// its bound, per place in it: they gave their place back (`LoopSlot`) and wait on a call that
  /// may hang until the store's deadline.
  static let parkedPerSlot = 4

  /// How many HTTP connections the worker's client should allow to one store host: one per item
  /// in flight, parked ones included, so that calls that hang (each holds its connection until
  /// its timeout) never queue the other chains' calls in the client's connection pool.
  public static func connectionsPerHost(_ settings: WorkerSettings) -> Int {
    max(1, settings.storeConcurrency) * inFlightPerPermit * (1 + parkedPerSlot)
  }

  /// Processes due inbox items and due subscriptions, up to `inFlightPerPermit` ×
  /// `storeConcurrency` at once, and takes more as soon as any one finishes: an item whose store
  /// call hangs (until the call's timeout) delays its own chain only, never a batch of others
  /// (issue 24). An item whose store call runs past its overtime gives its place back
  /// (`LoopSlot`) and is parked, up to `parkedPerSlot` times the bound, so hung calls never fill
  /// the loop (issue 30). A write of a chain is conditional on the version it was read at
  /// (`ChainRefresher`; its per-chain lock only makes conflicts rarer), and a scheduled check is
  /// claimed (`claimDueChecks`), so no two workers make it at once. Sleeps `pollMs` when nothing is due. Throws
  /// `WorkerLeaseError` when a write finds the lease taken over: this worker must step down.
  func loop() async throws {
    let clock = ContinuousClock()
    var claimsRenewedAt = clock.now
    // Well within the lease: an item or a check waiting its turn here keeps its claim.
    let renewEvery = Duration.milliseconds(max(1, settings.leaseMs / 3))
    let limit = max(1, settings.storeConcurrency) * Self.inFlightPerPermit
    let parkedLimit = limit * Self.parkedPerSlot
    // One element per place given back by a store call past its overtime.
    let (releases, releaser) = AsyncStream<Void>.makeStream()
    defer { releaser.finish() }
    try await withThrowingTaskGroup(of: LoopTask.self) { group in
      var inFlight = 0
      /// Items and checks that gave their place back and have not ended yet.
      var parked = 0
      var watching = false
      /// The place of each item and check in flight, by `LoopTask.slotKey`.
      var slots: [String: LoopSlot] = [:]
      func slot(_ key: String) -> LoopSlot {
        let slot = LoopSlot { releaser.yield() }
        slots[key] = slot
        return slot
      }
      /// An item or check ended: its place, or its parking spot, is free.
      func ended(_ key: String) {
        if let slot = slots.removeValue(forKey: key), slot.isReleased { parked -= 1 } else { inFlight -= 1 }
      }
      /// The checks this loop is making: their claims, by chain.
      var checking: [String: CheckClaim] = [:]
      /// The inbox items this loop is processing: their claims, by id.
      var processing: [Int64: InboxClaim] = [:]
      /// Checks claimed again while a check of the same chain was still running, by chain.
      var reclaimed: [String: DueCheck] = [:]
      var ticking = false
      while !Task.isCancelled {
        var started = 0
        do {
          if processing.isEmpty && checking.isEmpty {
            claimsRenewedAt = clock.now
          } else if clock.now - claimsRenewedAt >= renewEvery {
            // The claims of items and checks still waiting (a store call permit, their chain's
            // lock) or running are renewed, so no other worker takes them over and reads them again.
            claimsRenewedAt = clock.now
            try await renewClaims(
              items: Array(processing.values), checks: Array(checking.values) + reclaimed.values.map(\.claim))
          }
          if inFlight < limit && parked < parkedLimit {
            // Never our own running items, even past their lease: taking one over would only
            // make the running one's finish find its claim lost.
            let items = try await storage.claimInbox(
              nowMs: nowMs(), limit: limit - inFlight, leaseMs: settings.leaseMs, excluding: Set(processing.keys))
            drain.read()
            for item in items {
              processing[item.id] = item.claim
              let place = slot(LoopTask.item(item.id).slotKey)
              group.addTask {
                await LoopSlot.$current.withValue(place) { await self.processor.process(item) }
                return .item(item.id)
              }
            }
            started += items.count
            inFlight += items.count
          }
          if inFlight < limit && parked < parkedLimit {
            let room = limit - inFlight
            // Claimed: no other worker is handed these checks until their lease ends. A check of
            // ours still running past its lease was claimed again here: the new claim waits for
            // the running one to end (whose postponement finds its claim lost) and is then made
            // at once, so the check is neither made twice at a time nor left claimed by nobody.
            var due: [DueCheck] = []
            for check in try await storage.claimDueChecks(nowMs: nowMs(), limit: room, leaseMs: settings.leaseMs) {
              let key = LoopTask.key(check.subscription)
              if checking[key] != nil { reclaimed[key] = check } else { due.append(check) }
            }
            for check in due {
              let key = LoopTask.key(check.subscription)
              checking[key] = check.claim
              let place = slot(LoopTask.check(key).slotKey)
              group.addTask {
                await LoopSlot.$current.withValue(place) { await self.rescheduler.reverify(check) }
                return .check(key)
              }
            }
            started += due.count
            inFlight += due.count
          }
        } catch let error as WorkerLeaseError {
          throw error
        } catch {
          drain.failed(error)
          logger.error("the worker loop could not read storage", metadata: ["error": "\(error)"])
        }
        // Something started and there is room: more may be due at once.
        if started > 0 && inFlight < limit { continue }
        if !watching {
          watching = true
          group.addTask {
            var next = releases.makeAsyncIterator()
            _ = await next.next()
            return .released
          }
        }
        if !ticking {
          ticking = true
          group.addTask {
            // Never longer than the claims' renewal interval, however long `pollMs` is.
            try? await Task.sleep(for: min(.milliseconds(self.settings.pollMs), renewEvery))
            return .tick
          }
        }
        switch try await group.next() {
        case .tick?: ticking = false
        case .released?:
          watching = false
          inFlight -= 1
          parked += 1
        case .item(let id)?:
          ended(LoopTask.item(id).slotKey)
          processing.removeValue(forKey: id)
        case .check(let key)?:
          ended(LoopTask.check(key).slotKey)
          checking.removeValue(forKey: key)
          if let next = reclaimed.removeValue(forKey: key) {
            checking[key] = next.claim
            inFlight += 1
            let place = slot(LoopTask.check(key).slotKey)
            group.addTask {
              await LoopSlot.$current.withValue(place) { await self.rescheduler.reverify(next) }
              return .check(key)
            }
          }
        case nil: break
        }
      }
      group.cancelAll()
    }
  }
}

extension VerifierWorker {
  /// Renews the claims of the inbox items and the checks the loop holds (running, or waiting
  /// their turn) until a lease from now: one renewal for both, every third of `leaseMs`.
  func renewClaims(items: [InboxClaim], checks: [CheckClaim]) async throws {
    let untilMs = nowMs() + settings.leaseMs
    if !items.isEmpty { _ = try await storage.renewInboxClaims(items, untilMs: untilMs) }
    if !checks.isEmpty { _ = try await storage.renewCheckClaims(checks, untilMs: untilMs) }
  }
}

/// What finished in the worker loop's task group: an inbox item (by id), a subscription's check
/// (by store and purchase id), the poll interval, or a place given back (`LoopSlot`).
enum LoopTask: Sendable {
  case item(Int64)
  case check(String)
  case tick
  case released

  /// The key of an item's or a check's place in the loop.
  var slotKey: String {
    switch self {
    case .item(let id): "item \(id)"
    case .check(let key): "check \(key)"
    case .tick, .released: ""
    }
  }

  static func key(_ subscription: StoredSubscription) -> String {
    "\(subscription.store.rawValue) \(subscription.purchaseId)"
  }
}
