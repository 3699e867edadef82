import Logging
import TollgateCore
import TollgateTesting

@testable import TollgateWorker

/// The worker's parts wired to fakes and a manual clock, without sockets or a database.
struct WorkerParts {
  static let day: Int64 = 86_400_000
  static let start: Int64 = 1_700_000_000_000

  let clock = ManualClock(nowMs: start)
  let storage = FakeWorkerStorage()
  let gateway: FakeStoreGateway
  let settings: WorkerSettings
  let catalog: ProductCatalog
  let stats: WorkerStats
  let reconciler: Reconciler
  let refresher: ChainRefresher
  let processor: ItemProcessor
  let rescheduler: Rescheduler
  let acknowledgements = PendingAcknowledgements()
  let sweeper: StoreSweeper

  /// - Parameter store: the store the fake gateway speaks for (Google Play links replaced chains).
  init(
    store: Store = .appStore, transferPolicy: TransferPolicy = .keepWithOriginalOwner,
    configure: (inout WorkerSettings) -> Void = { _ in }
  ) {
    let gateway = FakeStoreGateway(store: store)
    var settings = WorkerSettings()
    settings.backoffBaseMs = 1_000
    settings.backoffMaxMs = 60_000
    configure(&settings)
    let catalog = ProductCatalog(
      apps: [Self.app(store)],
      entitlements: [EntitlementDefinition(id: "premium")],
      products: [ProductConfig(productId: "monthly", store: store, entitlements: ["premium"])],
      transferPolicy: transferPolicy)
    let logger = Logger(label: "test.worker", factory: { _ in SwiftLogNoOpLogHandler() })
    let gateways = StoreGateways([gateway])
    let stats = WorkerStats(stores: [store])
    self.stats = stats
    let backoff = Backoff(baseMs: settings.backoffBaseMs, maxMs: settings.backoffMaxMs)
    let now = clock.function
    self.gateway = gateway
    self.settings = settings
    self.catalog = catalog
    let parts = VerificationParts(
      storage: storage, gateways: gateways, catalog: catalog, settings: settings, backoff: backoff, stats: stats,
      acknowledgements: acknowledgements, nowMs: now, logger: logger)
    reconciler = parts.reconciler
    refresher = parts.refresher
    processor = parts.processor
    rescheduler = parts.rescheduler
    sweeper = StoreSweeper(
      gateways: gateways, refresher: parts.refresher, storage: storage, stats: stats,
      intervalMs: settings.sweepIntervalMs, nowMs: now, logger: logger)
  }

  var now: Int64 { clock.nowMs }

  /// The one app of `store` the fake gateway speaks for.
  static func app(_ store: Store) -> AppConfig {
    switch store {
    case .googlePlay: AppConfig(id: "android", store: .googlePlay, packageName: FakeStoreGateway.appId)
    case .amazon: AppConfig(id: "amazon", store: .amazon, amazonAppId: FakeStoreGateway.appId)
    case .appStore, .promotional: AppConfig(id: "ios", store: store, bundleId: FakeStoreGateway.appId)
    }
  }

  /// A monthly subscription bought now, expiring in 30 days, as the store answers it.
  func boughtNow(_ purchaseId: String, expiresInMs: Int64 = 30 * day, appAccountToken: String? = nil) -> VerifiedChain {
    .monthly(
      purchaseId, store: gateway.store, purchasedAtMs: now, expiresAtMs: now + expiresInMs,
      appAccountToken: appAccountToken, asOfMs: now)
  }

  /// Claims and processes every due inbox item.
  func processDue() async {
    for item in await storage.claimInbox(nowMs: now, limit: 100, leaseMs: settings.leaseMs, excluding: []) {
      await processor.process(item)
    }
  }
}
