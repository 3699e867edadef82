import Foundation
import Logging
import TollgateCore
import TollgateStorage

extension SQLiteEntitlementStorage {
  /// Looks at the file with an `SQLiteChangeProbe` every `interval` on a thread of its own and
  /// signals when something was committed. One sleeping thread costs one wake-up per look;
  /// sleeping in a task cost a timer thread's and a pool thread's each time, on the core that
  /// answers requests. A probe that cannot be opened, or a look that fails, says "maybe": the
  /// follower reads the feed, and its read reports the problem. The thread ends when the
  /// follower stops iterating.
  public func changeSignals(every interval: Duration, quiet: @escaping @Sendable () -> Void) -> ChangeSignals {
    let (signals, continuation) = ChangeSignals.makeSignals(quiet: quiet)
    let sleepUs = max(100, UInt32(clamping: interval.milliseconds * 1_000))
    let thread = Thread { [path, logger] in
      var probe: SQLiteChangeProbe?
      do {
        probe = try SQLiteChangeProbe(path: path)
      } catch {
        logger.warning("no change probe; reading the change feed on every poll", metadata: ["error": "\(error)"])
      }
      while !continuation.isFinished {
        if let probe, (try? probe.mayHaveChanged()) == false {
          continuation.quiet()
        } else {
          continuation.changed()
        }
        usleep(sleepUs)
      }
    }
    thread.name = "tollgate-feed-watch"
    thread.start()
    return signals
  }
}
