import CTollgateNet
import Synchronization
import TollgateContract

/// Where the gRPC and HTTP doors record their calls and refused connections: the same
/// `CallCounters.record` as the fast port's loops, behind one lock (those doors cost tens of
/// microseconds a call already; the fast port, which cannot afford a shared lock, counts per
/// loop). One per door; a scrape reads `snapshot()`.
public final class DoorCallRecorder: Sendable {
  public let door: ServeDoor
  private let calls = Mutex(CallCounters())
  private let refusals = Mutex<[String: UInt64]>([:])

  public init(door: ServeDoor) {
    self.door = door
  }

  /// The monotonic clock, in nanoseconds: a call's start, for `record(_:outcome:since:)`.
  public static func now() -> UInt64 { tg_net_now_ns() }

  /// Records one call of `method` (nil: one the door does not know) that ended with `outcome`,
  /// begun at `startNs` (`now()`).
  public func record(_ method: EntitlementsMethod?, outcome: CallOutcome, since startNs: UInt64) {
    let elapsed = tg_net_now_ns() &- startNs
    let slot = method.map { CallCounters.slot(methodIndex: $0.rawValue) } ?? CallCounters.unknownMethod
    calls.withLock { $0.record(method: slot, outcome: outcome, nanoseconds: elapsed) }
  }

  /// Counts a connection the door refused or cut, by a reason from a small vocabulary
  /// (`over_capacity`, `header_timeout`, …).
  public func refusedConnection(reason: String) {
    refusals.withLock { $0[reason, default: 0] += 1 }
  }

  public func snapshot() -> DoorSnapshot {
    DoorSnapshot(calls: calls.withLock { $0.snapshot() }, refusedConnections: refusals.withLock { $0 })
  }
}

/// One door's counts at a scrape: its calls, and its refused connections by reason.
public struct DoorSnapshot: Sendable, Equatable {
  public var calls: CallSnapshot
  public var refusedConnections: [String: UInt64]

  public init(calls: CallSnapshot = .empty, refusedConnections: [String: UInt64] = [:]) {
    self.calls = calls
    self.refusedConnections = refusedConnections
  }

  public mutating func add(_ other: DoorSnapshot) {
    calls.add(other.calls)
    refusedConnections.merge(other.refusedConnections, uniquingKeysWith: +)
  }
}
