import Logging
import TollgateCore

/// One store's request quota for the whole deployment (`worker.storeRequestsPerMinute`): every
/// worker on the database takes its calls from one budget per window, through
/// `WorkerStorage.reserveStoreCalls`, so N workers together stay within what the store allows
/// one developer account, instead of each within its own share.
///
/// A worker reserves calls in small blocks (a twentieth of the limit, at most 20), so a store
/// call costs a storage round trip only once per block; what a block leaves unused at the
/// window's end is lost, which only ever keeps the deployment further below the quota. When the
/// window's budget is spent, `take()` waits for the next window. Windows are aligned to the wall
/// clock, so that every worker's window is the same.
///
/// When the storage cannot be asked, the call goes ahead (logged once per outage): a worker that
/// cannot reach its database cannot write what it verifies either, and a store that answers
/// 429 is a transient failure the worker retries.
public actor StoreCallBudget {
  public let store: Store
  public let limit: Int
  public let windowMs: Int64
  private let storage: any WorkerStorage
  private let nowMs: @Sendable () -> Int64
  private let logger: Logger
  private var windowStartMs: Int64 = .min
  private var reserved = 0
  private var storageFailing = false

  public init(
    store: Store, limit: Int, windowMs: Int64 = 60_000, storage: any WorkerStorage,
    nowMs: @escaping @Sendable () -> Int64 = SystemClock.nowMs, logger: Logger
  ) {
    self.store = store
    self.limit = max(1, limit)
    self.windowMs = max(1, windowMs)
    self.storage = storage
    self.nowMs = nowMs
    self.logger = logger
  }

  /// The budget `settings` give `store` (`worker.storeRequestsPerMinute`), taken from `storage`;
  /// nil when they give it none. Passed to the store's gateway, whose `StoreCallLimiter` takes
  /// each call from it.
  public static func configured(
    for store: Store, settings: WorkerSettings, storage: any WorkerStorage, logger: Logger
  ) -> StoreCallBudget? {
    settings.requestsPerMinute[store].map { StoreCallBudget(store: store, limit: $0, storage: storage, logger: logger) }
  }

  /// Calls reserved per storage round trip.
  var blockSize: Int { max(1, min(limit / 20, 20)) }

  /// Waits until the deployment's budget allows one more call to the store, and takes it.
  /// Throws `CancellationError` when cancelled while waiting.
  public func take() async throws {
    while true {
      let now = nowMs()
      let window = now - now % windowMs
      if window != windowStartMs {
        windowStartMs = window
        reserved = 0
      }
      if reserved > 0 {
        reserved -= 1
        return
      }
      let granted: Int
      do {
        granted = try await storage.reserveStoreCalls(
          store, windowStartMs: window, wanted: blockSize, limit: limit)
        if storageFailing {
          storageFailing = false
          logger.notice("store-call budget readable again", metadata: ["store": "\(store.rawValue)"])
        }
      } catch {
        if !storageFailing {
          storageFailing = true
          logger.error(
            "store-call budget cannot be read; calling the store without it",
            metadata: ["store": "\(store.rawValue)", "error": "\(error)"])
        }
        return
      }
      // Another take may have moved to a newer window while this one waited for storage: calls
      // granted from the old one are dropped (counted, unused: the deployment stays below).
      if window == windowStartMs { reserved += granted }
      if reserved > 0 { continue }
      let wait = max(1, window + windowMs - nowMs())
      try await Task.sleep(for: .milliseconds(wait))
    }
  }
}
