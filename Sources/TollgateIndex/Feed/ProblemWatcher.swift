import Dispatch
import Foundation
import Synchronization

/// Asks whether the storage can still be trusted (`EntitlementStorage.problem()`: for SQLite a
/// stat of the file and its `-wal` and `-shm`) at once and then every `interval`, on a thread of
/// its own: kept off the event loops and the cooperative pool.
final class ProblemWatcher: Sendable {
  private let stopped = Atomic<Bool>(false)
  private let wake = DispatchSemaphore(value: 0)

  init(interval: Duration, check: @escaping @Sendable () -> Void) {
    let nanoseconds = max(1_000_000, Int(clamping: interval.components.seconds * 1_000_000_000))
    let thread = Thread { [self] in
      while !stopped.load(ordering: .relaxed) {
        check()
        _ = wake.wait(timeout: .now() + .nanoseconds(nanoseconds))
      }
    }
    thread.name = "tollgate-storage-check"
    thread.start()
  }

  /// Stops the thread at once (after a check in progress).
  func stop() {
    stopped.store(true, ordering: .relaxed)
    wake.signal()
  }
}
