import Synchronization
import TollgateCore

/// A clock that follows another, virtual one (a store simulator's, for demos and tests): it
/// reads as the virtual time plus the real time elapsed since the virtual clock last moved, so
/// time keeps running between the simulator's jumps and timers (backoff, leases) still fire.
///
/// Every follower must read the same now, whenever it started: the simulator reports, with its
/// virtual now, the now its followers read (`StoreSimulator.followedNowMs`, `GET /sim/clock`'s
/// `followedNowMs`: the virtual now plus the real time since the simulator's clock last moved,
/// measured by the simulator). A follower anchors on that reading and runs at the real clock's
/// rate from it, and re-anchors when the virtual clock moves, or when a reading says it is behind
/// (a late answer only makes a reading older, so it never pulls the clock back).
public final class FollowedClock: Sendable {
  private struct Reading {
    /// The virtual clock's own value, as last observed.
    var virtualMs: Int64
    /// What this clock read at `realMs`.
    var anchorMs: Int64
    var realMs: Int64
  }

  /// A reading further ahead than this re-anchors the clock (its real clock ran slow, or an
  /// earlier answer arrived late).
  public static let behindToleranceMs: Int64 = 5
  /// A reading this far behind re-anchors it too (no late answer explains it: the simulator was
  /// restarted).
  public static let aheadToleranceMs: Int64 = 1_000

  private let reading: Mutex<Reading>
  private let realMs: @Sendable () -> Int64

  public init(virtualMs: Int64, realMs: @escaping @Sendable () -> Int64 = SystemClock.nowMs) {
    self.realMs = realMs
    reading = Mutex(Reading(virtualMs: virtualMs, anchorMs: virtualMs, realMs: realMs()))
  }

  /// Records a reading of the virtual clock alone (no `followedNowMs`): the clock re-anchors on
  /// it when it moved. A reading equal to the last one changes nothing, so polling a clock that
  /// stands still does not stop this one. Followers started at different times disagree with this
  /// alone; prefer `observe(virtualMs:followedNowMs:)`.
  public func observe(virtualMs: Int64) {
    observe(virtualMs: virtualMs, followedNowMs: nil)
  }

  /// Records a reading of the simulator's clock: its virtual now and the now its followers read
  /// (`GET /sim/clock`). The clock re-anchors on `followedNowMs` when the virtual clock moved, or
  /// when this clock is behind it by more than `behindToleranceMs` (or ahead by more than
  /// `aheadToleranceMs`).
  public func observe(virtualMs: Int64, followedNowMs: Int64?) {
    let real = realMs()
    reading.withLock { current in
      let target = followedNowMs ?? virtualMs
      let reads = current.anchorMs + max(0, real - current.realMs)
      let moved = current.virtualMs != virtualMs
      let resync =
        followedNowMs != nil && (target - reads > Self.behindToleranceMs || reads - target > Self.aheadToleranceMs)
      if moved || resync { current = Reading(virtualMs: virtualMs, anchorMs: target, realMs: real) }
    }
  }

  /// A clock function that follows `simulator` in-process: it reads the simulator's
  /// `followedNowMs`, the same now as every other follower, in this process or another.
  public static func following(_ simulator: StoreSimulator) -> @Sendable () -> Int64 {
    { simulator.followedNowMs }
  }

  /// A clock function that follows `virtualNowMs` (read in-process, each time it is asked). It
  /// knows only the virtual now, so two made at different times after a jump disagree by the
  /// time between them: follow a simulator with `following(_: StoreSimulator)`.
  public static func following(_ virtualNowMs: @escaping @Sendable () -> Int64) -> @Sendable () -> Int64 {
    let clock = FollowedClock(virtualMs: virtualNowMs())
    return {
      clock.observe(virtualMs: virtualNowMs())
      return clock.nowMs()
    }
  }

  public func nowMs() -> Int64 {
    let current = reading.withLock { $0 }
    return current.anchorMs + max(0, realMs() - current.realMs)
  }
}
