import Logging
import TollgateCore

/// The parts that ask the stores and write what they say, wired once: the reconciler, the chain
/// refresher on it, and its two users, the inbox's item processor and the scheduled rescheduler.
struct VerificationParts: Sendable {
  let reconciler: Reconciler
  let refresher: ChainRefresher
  let processor: ItemProcessor
  let rescheduler: Rescheduler

  init(
    storage: any WorkerStorage, gateways: StoreGateways, catalog: ProductCatalog, settings: WorkerSettings,
    backoff: Backoff, stats: WorkerStats, health: StoreHealth? = nil,
    acknowledgements: PendingAcknowledgements = PendingAcknowledgements(), nowMs: @escaping @Sendable () -> Int64,
    logger: Logger
  ) {
    // Without one given (tests), a store health of its own over `storage`.
    let health = health ?? StoreHealth(storage: storage, stores: gateways.stores, logger: logger)
    reconciler = Reconciler(
      storage: storage, catalog: catalog, settings: settings, health: health, nowMs: nowMs, logger: logger)
    refresher = ChainRefresher(
      gateways: gateways, reconciler: reconciler, storage: storage, health: health,
      acknowledger: PurchaseAcknowledger(
        storage: storage, pending: acknowledgements, backoff: backoff, nowMs: nowMs, logger: logger))
    processor = ItemProcessor(
      gateways: gateways, refresher: refresher, storage: storage, backoff: backoff,
      notFoundRetryWindowMs: settings.notFoundRetryWindowMs, stats: stats, nowMs: nowMs, logger: logger)
    rescheduler = Rescheduler(
      gateways: gateways, refresher: refresher, storage: storage, backoff: backoff, stats: stats, nowMs: nowMs,
      logger: logger)
  }
}
