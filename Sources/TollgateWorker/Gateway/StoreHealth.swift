import Logging
import Synchronization
import TollgateCore

/// Per store, whether reading from it is failing now, and since when: the outage policy
/// (`ChainEvaluator`) keeps renewing subscribers in while it is, and the first success after a
/// failure ends the outage (postponed work for that store is then retried at once).
///
/// **Shared through storage** (`WorkerStorage`, "Store health"), so every worker on a database
/// evaluates a chain under the same policy: `failed` and `succeeded` write through, and what the
/// evaluations read (`failingStores`, `outages`) is a snapshot in memory, refreshed from storage
/// at least every `pollMs` (`keepFresh`, one of the worker's parts) and changed at once by this
/// worker's own writes. The hot path never reads storage: a success writes only while the
/// snapshot says the store is failing, and an evaluation reads the snapshot under a lock. An outage
/// another worker records is seen here within one refresh; a success here ends one another worker
/// recorded once a refresh has shown it.
///
/// A storage error is logged once until storage answers again. One while reading keeps the last
/// snapshot; one while writing keeps this worker's own observation in its snapshot until the next
/// refresh (a success it could not record leaves the outage recorded: the next answer ends it).
final class StoreHealth: Sendable {
  private struct State {
    var failingSince: [Store: Int64] = [:]
    /// Counts this worker's own changes of `failingSince`, so that a refresh can tell whether one
    /// landed while it read.
    var localWrites: UInt64 = 0
    var readsFailing = false
    var writesFailing = false
  }

  private let state = Mutex(State())
  let storage: any WorkerStorage
  /// The stores this worker reads (nil: all): another store's outage, recorded by a worker
  /// configured otherwise (or by this one before its configuration dropped the store), changes
  /// none of this worker's evaluations and no answer of this worker would ever end it.
  let stores: Set<Store>?
  let logger: Logger

  init(
    storage: any WorkerStorage, stores: [Store]? = nil,
    logger: Logger = Logger(label: "tollgate.worker.store-health")
  ) {
    self.storage = storage
    self.stores = stores.map(Set.init)
    self.logger = logger
  }

  /// A call to `store` failed for a reason that is not the buyer's (transient, or the operator's).
  func failed(_ store: Store, atMs: Int64) async {
    do {
      try await storage.recordStoreFailure(store, atMs: atMs)
      wrote(ok: true, store: store)
    } catch {
      wrote(ok: false, store: store, error: error)
    }
    state.withLock {
      $0.failingSince[store] = min($0.failingSince[store] ?? atMs, atMs)
      $0.localWrites &+= 1
    }
  }

  /// A call to `store` succeeded; returns true when this call's write ended the store's outage
  /// (recorded by any worker): of several workers that see the first answers at once, exactly one
  /// is told, and only it expedites the store's postponed work. No write while this worker's
  /// snapshot shows the store healthy.
  func succeeded(_ store: Store, nowMs: Int64) async -> Bool {
    guard state.withLock({ $0.failingSince[store] != nil }) else { return false }
    let ended: Bool
    do {
      ended = try await storage.recordStoreSuccess(store, nowMs: nowMs)
      wrote(ok: true, store: store)
    } catch {
      // The outage stays recorded: the next answer ends it.
      wrote(ok: false, store: store, error: error)
      return false
    }
    state.withLock {
      $0.failingSince[store] = nil
      $0.localWrites &+= 1
    }
    return ended
  }

  var failingStores: Set<Store> { state.withLock { Set($0.failingSince.keys) } }

  /// Since when calls to each failing store have been failing.
  var outages: [Store: Int64] { state.withLock { $0.failingSince } }

  /// Reads the shared store health into the snapshot. When this worker wrote while the read was
  /// under way, reads again (at most twice more), so that its own write is not undone by an
  /// older read; the storage holds every write anyway, so the next refresh corrects any rest.
  func refresh() async {
    for attempt in 1...3 {
      let before = state.withLock { $0.localWrites }
      let outages: [Store: Int64]
      do {
        outages = try await storage.storeOutages().filter { stores?.contains($0.key) ?? true }
      } catch {
        let first = state.withLock { state in
          defer { state.readsFailing = true }
          return !state.readsFailing
        }
        if first {
          logger.error(
            "store health could not be read from storage; the last known stays until it can",
            metadata: ["error": "\(error)"])
        }
        return
      }
      let (applied, recovered) = state.withLock { state in
        let recovered = state.readsFailing
        state.readsFailing = false
        guard state.localWrites == before || attempt == 3 else { return (false, recovered) }
        state.failingSince = outages
        return (true, recovered)
      }
      if recovered { logger.notice("store health is read from storage again") }
      if applied { return }
    }
  }

  /// Refreshes the snapshot every `everyMs` until cancelled.
  /// The worker refreshes at most this often (`worker.pollMs` when it is longer): an outage
  /// another worker saw reaches this one within a second, and an idle worker with a short poll
  /// does not read storage hundreds of times a second for it.
  static let refreshFloorMs: Int64 = 1_000

  func keepFresh(everyMs: Int64) async {
    while !Task.isCancelled {
      await refresh()
      do { try await Task.sleep(for: .milliseconds(max(1, everyMs))) } catch { return }
    }
  }

  /// Logs the first failed write of a streak, and the write that ends it.
  private func wrote(ok: Bool, store: Store, error: (any Error)? = nil) {
    let changed = state.withLock { state in
      defer { state.writesFailing = !ok }
      return state.writesFailing == ok
    }
    guard changed else { return }
    if let error {
      logger.error(
        "store health could not be written to storage; this worker keeps what it saw",
        metadata: ["store.name": "\(store.rawValue)", "error": "\(error)"])
    } else {
      logger.notice("store health is written to storage again")
    }
  }
}
