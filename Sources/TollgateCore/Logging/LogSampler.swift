import Synchronization

/// Lets through a few log lines per key and minute, and counts the rest: a flood of forged
/// notifications is counted in full (metrics) but cannot flood the log. The first line of the
/// next minute says how many were left out.
public final class LogSampler: Sendable {
  private struct Window {
    var startedAtMs: Int64
    var logged = 0
    var skipped = 0
  }

  private let windows = Mutex<[String: Window]>([:])
  public let perMinute: Int

  public init(perMinute: Int = 10) {
    self.perMinute = perMinute
  }

  /// Whether to log this occurrence of `key` at `nowMs`, and how many were left out of the log
  /// since the last line that was (reported once, with the next line let through).
  public func admit(_ key: String, nowMs: Int64) -> (log: Bool, skippedBefore: Int) {
    windows.withLock { windows in
      var window = windows[key] ?? Window(startedAtMs: nowMs)
      var skippedBefore = 0
      if nowMs - window.startedAtMs >= 60_000 {
        skippedBefore = window.skipped
        window = Window(startedAtMs: nowMs)
      }
      let log = window.logged < perMinute
      if log { window.logged += 1 } else { window.skipped += 1 }
      windows[key] = window
      return (log, log ? skippedBefore : 0)
    }
  }
}
