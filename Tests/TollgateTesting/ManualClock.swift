import Synchronization

/// A wall clock that tests move by hand.
public final class ManualClock: Sendable {
  private let current: Atomic<Int64>

  public init(nowMs: Int64) {
    current = Atomic(nowMs)
  }

  public var nowMs: Int64 { current.load(ordering: .relaxed) }

  public func advance(byMs delta: Int64) {
    current.add(delta, ordering: .relaxed)
  }

  public func set(_ nowMs: Int64) {
    current.store(nowMs, ordering: .relaxed)
  }

  /// For APIs that take `now: @Sendable () -> Int64`.
  public var function: @Sendable () -> Int64 { { self.nowMs } }
}
