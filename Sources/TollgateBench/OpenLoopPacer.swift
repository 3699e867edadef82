/// When one connection's requests are due in an open-loop run: evenly spaced at its share of the
/// total rate, staggered across connections so they do not all fire at once. A request that
/// cannot go out on time (its connection already has `pipeline` in flight) keeps its scheduled
/// moment, and its latency counts from there: that is the coordinated-omission correction.
struct OpenLoopPacer {
  let intervalNs: Double
  let originNs: UInt64
  /// Requests scheduled so far (the next one is number `scheduled`).
  private(set) var scheduled: UInt64 = 0

  /// - Parameters:
  ///   - ratePerSecond: this connection's rate.
  ///   - index / of: this connection's place among all, for the stagger.
  init(ratePerSecond: Double, startNs: UInt64, index: Int, of total: Int) {
    intervalNs = 1e9 / ratePerSecond
    originNs = startNs + UInt64(intervalNs * Double(index) / Double(max(total, 1)))
  }

  /// When the next request is due.
  var nextDueNs: UInt64 { originNs + UInt64(intervalNs * Double(scheduled)) }

  /// Takes the next request if it is due at `nowNs`: its scheduled moment.
  mutating func takeDue(nowNs: UInt64) -> UInt64? {
    let due = nextDueNs
    guard due <= nowNs else { return nil }
    scheduled += 1
    return due
  }
}
