import Synchronization
import TollgateCore

/// Verified purchases the store still waits to hear were delivered, with their deadlines: what
/// this worker has read since it started (each unacknowledged purchase is read again until it is
/// acknowledged, so after a restart they come back as their checks come due). For /health and
/// metrics: a purchase close to its deadline is money about to be refunded.
final class PendingAcknowledgements: Sendable {
  struct Entry: Sendable, Hashable {
    var deadlineMs: Int64
    var attempts: Int
  }

  private let entries = Mutex<[String: Entry]>([:])

  /// How close to its deadline a purchase counts as urgent.
  static let urgentWithinMs: Int64 = 24 * 3_600_000

  /// Records what a verification found: pending (with its deadline), or nothing to acknowledge.
  func observed(_ chain: VerifiedChain) {
    let key = ChainLockKey.of(store: chain.store, purchaseId: chain.purchaseId)
    entries.withLock {
      if let pending = chain.acknowledgement {
        $0[key, default: Entry(deadlineMs: pending.deadlineMs, attempts: 0)].deadlineMs = pending.deadlineMs
      } else {
        $0.removeValue(forKey: key)
      }
    }
  }

  /// An acknowledgement was sent and taken.
  func acknowledged(_ chain: VerifiedChain) {
    _ = entries.withLock { $0.removeValue(forKey: ChainLockKey.of(store: chain.store, purchaseId: chain.purchaseId)) }
  }

  /// An acknowledgement failed; returns how many times it has now.
  func failed(_ chain: VerifiedChain) -> Int {
    let key = ChainLockKey.of(store: chain.store, purchaseId: chain.purchaseId)
    return entries.withLock { entries in
      let deadline = chain.acknowledgement?.deadlineMs ?? .max
      entries[key, default: Entry(deadlineMs: deadline, attempts: 0)].attempts += 1
      return entries[key]?.attempts ?? 1
    }
  }

  /// The nearest deadline of those pending; nil when none is.
  func nearestDeadlineMs() -> Int64? {
    entries.withLock { $0.values.map(\.deadlineMs).min() }
  }

  /// How many are pending, and how many of them are due within `urgentWithinMs` of `nowMs`
  /// (or past it).
  func counts(nowMs: Int64) -> (pending: Int, urgent: Int) {
    entries.withLock { entries in
      (entries.count, entries.values.filter { $0.deadlineMs - nowMs <= Self.urgentWithinMs }.count)
    }
  }
}
