import Synchronization

/// A listener's open-connection count with a cap, shared by all of its connections: each takes a
/// slot when it is accepted and gives it back when it closes. The one counter behind the HTTP
/// listeners' guard (`HTTPListenerLimits`) and the gRPC door's connection limits.
public final class ConnectionSlots: Sendable {
  /// Slots there are: `acquire` takes none beyond this many.
  public let capacity: Int
  private let taken = Atomic<Int>(0)

  public init(capacity: Int) {
    self.capacity = capacity
  }

  /// Takes a slot; false (nothing taken) when all `capacity` are in use.
  public func acquire() -> Bool {
    var current = taken.load(ordering: .relaxed)
    while current < capacity {
      let (exchanged, original) = taken.compareExchange(
        expected: current, desired: current + 1, ordering: .acquiringAndReleasing)
      if exchanged { return true }
      current = original
    }
    return false
  }

  /// Takes a slot even when none is free: for a connection taking over the slot of one being
  /// closed to make room, which gives its slot back once it has closed. Until then the count is
  /// one over `capacity`.
  public func acquireOverCapacity() {
    taken.add(1, ordering: .acquiringAndReleasing)
  }

  /// Gives back a slot `acquire` (true) or `acquireOverCapacity` took.
  public func release() {
    taken.subtract(1, ordering: .acquiringAndReleasing)
  }

  /// Slots taken now.
  public var count: Int { taken.load(ordering: .relaxed) }
}
