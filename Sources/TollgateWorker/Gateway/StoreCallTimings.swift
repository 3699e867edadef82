import CoreMetrics
import Synchronization
import TollgateCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// How long each call to a store's API takes, as the histogram
/// `tollgate_store_call_duration_seconds{store,call}`: every gateway's calls go through its
/// `StoreCallLimiter`, which times the call itself (not the wait for its permit or budget) and
/// reports here once the worker has attached it (`StoreCallLimiter.report(to:store:)`). `call` is
/// a name the gateway's code gives (bounded: one per API the store offers).
///
/// It also takes the CPU time of a gateway's CPU-bound stages (`WorkerStage`), as the histogram
/// `tollgate_worker_stage_cpu_seconds{stage}` (`StoreCallLimiter.measured`): the thread's CPU
/// time, so work that waited for a core is not counted twice.
public final class StoreCallTimings: Sendable {
  private let factory: any MetricsFactory
  private let timers = Mutex<[String: Timer]>([:])
  private let stageTimers: [WorkerStage: Timer]

  init(factory: any MetricsFactory) {
    self.factory = factory
    stageTimers = Dictionary(
      uniqueKeysWithValues: WorkerStage.allCases.map { stage in
        (stage, Timer(label: WorkerMetrics.stageCPU, dimensions: [("stage", stage.rawValue)], factory: factory))
      })
  }

  func record(stage: WorkerStage, nanoseconds: Int64) {
    stageTimers[stage]?.recordNanoseconds(max(0, nanoseconds))
  }

  /// The CPU time the calling thread has used so far, in nanoseconds (0 where it cannot be read).
  static func threadCPUNanoseconds() -> Int64 {
    var time = timespec()
    guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time) == 0 else { return 0 }
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
  }

  func record(store: Store, call: String, nanoseconds: Int64) {
    let key = "\(store.rawValue) \(call)"
    let timer = timers.withLock { timers in
      if let timer = timers[key] { return timer }
      let timer = Timer(
        label: WorkerMetrics.storeCallDuration, dimensions: [("store", store.rawValue), ("call", call)],
        factory: factory)
      timers[key] = timer
      return timer
    }
    timer.recordNanoseconds(max(0, nanoseconds))
  }
}

/// A gateway's CPU-bound stage whose CPU time the worker accounts for
/// (`tollgate_worker_stage_cpu_seconds{stage}`).
public enum WorkerStage: String, Sendable, CaseIterable {
  /// Signature and certificate-chain checks of a store's signed payloads or of its push.
  case verify
}
