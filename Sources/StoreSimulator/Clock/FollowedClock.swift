import Synchronization
import TollgateCore

/// A clock that follows another, virtual one (a store simulator's, for demos and tests): it
/// reads as the last virtual time observed plus the real time elapsed since it was observed, so
/// time keeps running between the simulator's jumps and timers (backoff, leases) still fire.
public final class FollowedClock: Sendable {
  private struct Reading {
    var virtualMs: Int64
    var realMs: Int64
  }

  private let reading: Mutex<Reading>
  private let realMs: @Sendable () -> Int64

  public init(virtualMs: Int64, realMs: @escaping @Sendable () -> Int64 = SystemClock.nowMs) {
    self.realMs = realMs
    reading = Mutex(Reading(virtualMs: virtualMs, realMs: realMs()))
  }

  /// Records a reading of the virtual clock. A reading equal to the last one changes nothing, so
  /// polling a clock that stands still does not stop this one.
  public func observe(virtualMs: Int64) {
    let real = realMs()
    reading.withLock { current in
      if current.virtualMs != virtualMs { current = Reading(virtualMs: virtualMs, realMs: real) }
    }
  }

  /// A clock function that follows `virtualNowMs` (read in-process, each time it is asked).
  public static func following(_ virtualNowMs: @escaping @Sendable () -> Int64) -> @Sendable () -> Int64 {
    let clock = FollowedClock(virtualMs: virtualNowMs())
    return {
      clock.observe(virtualMs: virtualNowMs())
      return clock.nowMs()
    }
  }

  public func nowMs() -> Int64 {
    let current = reading.withLock { $0 }
    return current.virtualMs + max(0, realMs() - current.realMs)
  }
}
