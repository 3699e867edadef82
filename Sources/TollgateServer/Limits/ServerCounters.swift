import CTollgateNet
import Synchronization

/// What every loop of a server counts together: open connections (against the connection cap) and
/// the bytes held for partial request frames (against the server-wide buffer bound).
final class ServerCounters: Sendable {
  private let connections = Atomic<Int>(0)
  private let bufferedBytes = Atomic<Int>(0)
  /// The most bytes buffered since memory was last given back to the system.
  private let bufferedPeak = Atomic<Int>(0)

  var openConnections: Int { connections.load(ordering: .relaxed) }
  var buffered: Int { bufferedBytes.load(ordering: .relaxed) }

  /// Counts a new connection unless `limit` are open already.
  func openConnection(limit: Int) -> Bool {
    var current = connections.load(ordering: .relaxed)
    while current < limit {
      let (exchanged, original) = connections.compareExchange(
        expected: current, desired: current + 1, ordering: .relaxed)
      if exchanged { return true }
      current = original
    }
    return false
  }

  func closeConnection() {
    connections.subtract(1, ordering: .relaxed)
  }

  /// Adds `change` bytes of partial frames unless that would pass `limit` (releasing always works).
  func chargeBuffered(_ change: Int, limit: Int) -> Bool {
    guard change > 0 else {
      bufferedBytes.add(change, ordering: .relaxed)
      return true
    }
    var current = bufferedBytes.load(ordering: .relaxed)
    while current + change <= limit {
      let (exchanged, original) = bufferedBytes.compareExchange(
        expected: current, desired: current + change, ordering: .relaxed)
      if exchanged {
        _ = bufferedPeak.max(current + change, ordering: .relaxed)
        return true
      }
      current = original
    }
    return false
  }

  /// After many large partial frames were freed (clients that sent half a megabyte and left), gives
  /// the memory the allocator kept for them back to the system.
  func releaseFreeMemoryIfShrunk() {
    let peak = bufferedPeak.load(ordering: .relaxed)
    guard peak >= 16 << 20, buffered <= peak / 4 else { return }
    guard bufferedPeak.compareExchange(expected: peak, desired: buffered, ordering: .relaxed).exchanged else { return }
    tg_net_release_free_memory()
  }
}
