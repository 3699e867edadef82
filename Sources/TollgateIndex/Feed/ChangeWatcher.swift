import Foundation
import Logging
import Synchronization
import TollgateStorage

/// Looks at the storage's change probe every `interval` on a thread of its own and signals when
/// the feed may have moved. One sleeping thread costs one wake-up per look; sleeping in a task
/// cost a timer thread's and a pool thread's each time, on the core that answers requests.
/// Without a probe (a storage that has none, or one that cannot be opened) it signals every
/// interval, and the follower reads the feed each time.
final class ChangeWatcher: Sendable {
  /// Signals, coalesced: one waiting signal stands for any number of changes.
  let signals: AsyncStream<Void>
  private let continuation: AsyncStream<Void>.Continuation
  private let stopped = Atomic<Bool>(false)

  /// Starts watching. `changed` is called before each signal, `quiet` after each look that found
  /// nothing new, `checkFile` about once every `fileCheckInterval` (the storage's file identity:
  /// a stat, kept off the event loops and the cooperative pool by running here).
  init(
    storage: any EntitlementStorage, interval: Duration, logger: Logger, changed: @escaping @Sendable () -> Void,
    quiet: @escaping @Sendable () -> Void, fileCheckInterval: Duration = .seconds(1),
    checkFile: @escaping @Sendable () -> Void = {}
  ) {
    (signals, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    let sleepUs = max(100, UInt32(clamping: interval.milliseconds * 1_000))
    let looksPerFileCheck = max(1, Int(fileCheckInterval.milliseconds * 1_000 / Int64(sleepUs)))
    let thread = Thread { [self] in
      watch(
        storage: storage, sleepUs: sleepUs, logger: logger, changed: changed, quiet: quiet,
        looksPerFileCheck: looksPerFileCheck, checkFile: checkFile)
    }
    thread.name = "tollgate-feed-watch"
    thread.start()
  }

  private func watch(
    storage: any EntitlementStorage, sleepUs: UInt32, logger: Logger, changed: () -> Void, quiet: () -> Void,
    looksPerFileCheck: Int, checkFile: () -> Void
  ) {
    var looks = 0
    var probe: (any ChangeProbe)?
    do {
      probe = try storage.makeChangeProbe()
    } catch {
      logger.warning("no change probe; reading the change feed on every poll", metadata: ["error": "\(error)"])
    }
    while !stopped.load(ordering: .relaxed) {
      if looks % looksPerFileCheck == 0 { checkFile() }
      looks &+= 1
      // A probe that fails says "maybe": the follower's read reports the problem.
      if let probe, (try? probe.mayHaveChanged()) == false {
        quiet()
      } else {
        changed()
        continuation.yield()
      }
      usleep(sleepUs)
    }
    continuation.finish()
  }

  /// Stops the thread after its current look; `signals` then ends.
  func stop() {
    stopped.store(true, ordering: .relaxed)
  }
}
