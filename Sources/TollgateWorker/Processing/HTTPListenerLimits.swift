import NIOCore
import Synchronization

/// What one of the worker's HTTP listeners allows a connection (`HTTPConnectionGuard` enforces
/// it), and the count of its open connections, shared by all of them.
final class HTTPListenerLimits: Sendable {
  /// `listen` or `adminListen`: the metrics' `listener` dimension.
  let listener: String
  /// A request head must be complete this long after its first bytes (`worker.headerTimeoutMs`).
  let headerTimeout: TimeAmount
  /// A whole request, head and body, must be complete this long after its first bytes
  /// (`worker.requestTimeoutMs`).
  let requestTimeout: TimeAmount
  /// A body must average this many bytes a second, counted from `bodyRateGrace` after its head
  /// (`worker.minBodyBytesPerSecond`, `worker.bodyRateGraceMs`); 0: no rate rule.
  let minBodyBytesPerSecond: Int
  let bodyRateGrace: TimeAmount
  /// Open connections at once (`worker.maxConnections`, `worker.adminMaxConnections`).
  let maxConnections: Int
  private let stats: WorkerStats
  private let open = Atomic<Int>(0)

  init(listener: String, settings: WorkerSettings, maxConnections: Int, stats: WorkerStats) {
    self.listener = listener
    headerTimeout = .milliseconds(settings.headerTimeoutMs)
    requestTimeout = .milliseconds(settings.requestTimeoutMs)
    minBodyBytesPerSecond = settings.minBodyBytesPerSecond
    bodyRateGrace = .milliseconds(settings.bodyRateGraceMs)
    self.maxConnections = maxConnections
    self.stats = stats
  }

  /// Takes a connection slot; false (nothing taken) when all `maxConnections` are in use.
  func takeSlot() -> Bool {
    var current = open.load(ordering: .relaxed)
    while current < maxConnections {
      let (exchanged, original) = open.compareExchange(
        expected: current, desired: current + 1, ordering: .acquiringAndReleasing)
      if exchanged { return true }
      current = original
    }
    return false
  }

  func giveSlot() {
    open.subtract(1, ordering: .acquiringAndReleasing)
  }

  /// Connections holding a slot now.
  var openConnections: Int { open.load(ordering: .relaxed) }

  /// Why a connection was closed by its guard (the metric's `reason`).
  enum Cut: String {
    /// Accepted beyond `maxConnections`: closed before anything of it was read.
    case overCapacity = "over_capacity"
    case headerTimeout = "header_timeout"
    case requestTimeout = "request_timeout"
    case slowBody = "slow_body"
  }

  func count(_ cut: Cut) {
    stats.httpConnectionCut(listener: listener, reason: cut.rawValue)
  }

  /// When a body of `bytes` bytes, begun at `start`, falls below the minimum rate: `bodyRateGrace`
  /// after `start` plus the time `bytes + 1` take at `minBodyBytesPerSecond`.
  func bodyRateDeadline(start: NIODeadline, bytes: Int) -> NIODeadline {
    let perByte = Int64(1_000_000_000) / Int64(max(1, minBodyBytesPerSecond))
    let (allowance, overflow) = Int64(bytes + 1).multipliedReportingOverflow(by: max(1, perByte))
    return start + bodyRateGrace + .nanoseconds(overflow ? Int64.max / 4 : allowance)
  }
}
