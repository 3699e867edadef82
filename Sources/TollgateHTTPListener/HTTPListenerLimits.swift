import NIOCore

/// What one HTTP listener allows a connection (`HTTPConnectionGuard` enforces it), and the count
/// of its open connections, shared by all of them. It knows no configuration: the worker builds
/// it from its settings (`worker.headerTimeoutMs`, …) and counts its cuts in its own metrics.
public final class HTTPListenerLimits: Sendable {
  /// The listener's name (the worker's `listen` or `adminListen`): what `countCut` is told.
  public let listener: String
  /// A request head must be complete this long after its first bytes.
  public let headerTimeout: TimeAmount
  /// A whole request, head and body, must be complete this long after its first bytes.
  public let requestTimeout: TimeAmount
  /// A body must average this many bytes a second, counted from `bodyRateGrace` after its head;
  /// 0: no rate rule.
  public let minBodyBytesPerSecond: Int
  public let bodyRateGrace: TimeAmount
  /// Open connections at once.
  public let maxConnections: Int
  /// When set, a connection's first request head must be complete this long after it connected:
  /// one that sends nothing is closed then (`header_timeout`), not only after the idle timeout.
  /// Nil (the worker's listeners): a silent connection waits for the idle timeout.
  public let firstHeadTimeout: TimeAmount?
  /// When set, a connection must prove a caller (a handler fires `HTTPConnectionProven` on its
  /// pipeline, as the HTTP door does once a key is accepted) this long after it connected, or it
  /// is closed (`unproven`), busy or not: strangers repeating keyless calls (`/healthz`) cannot
  /// hold every slot. Nil (the worker's listeners): no such rule.
  public let unprovenTimeout: TimeAmount?
  private let countCut: @Sendable (_ listener: String, _ reason: String) -> Void
  private let slots: ConnectionSlots

  /// - Parameter countCut: told each connection the guard closes: the listener's name and the
  ///   reason (`Cut`'s raw value), both bounded, for a metric's dimensions.
  public init(
    listener: String, headerTimeout: TimeAmount, requestTimeout: TimeAmount, minBodyBytesPerSecond: Int,
    bodyRateGrace: TimeAmount, maxConnections: Int, firstHeadTimeout: TimeAmount? = nil,
    unprovenTimeout: TimeAmount? = nil,
    countCut: @escaping @Sendable (_ listener: String, _ reason: String) -> Void
  ) {
    self.listener = listener
    self.headerTimeout = headerTimeout
    self.requestTimeout = requestTimeout
    self.minBodyBytesPerSecond = minBodyBytesPerSecond
    self.bodyRateGrace = bodyRateGrace
    self.maxConnections = maxConnections
    self.slots = ConnectionSlots(capacity: maxConnections)
    self.firstHeadTimeout = firstHeadTimeout
    self.unprovenTimeout = unprovenTimeout
    self.countCut = countCut
  }

  /// Takes a connection slot; false (nothing taken) when all `maxConnections` are in use.
  func takeSlot() -> Bool {
    slots.acquire()
  }

  func giveSlot() {
    slots.release()
  }

  /// Connections holding a slot now.
  public var openConnections: Int { slots.count }

  /// Why a connection was closed by its guard (the metric's `reason`).
  public enum Cut: String, Sendable {
    /// Accepted beyond `maxConnections`: closed before anything of it was read.
    case overCapacity = "over_capacity"
    case headerTimeout = "header_timeout"
    case requestTimeout = "request_timeout"
    case slowBody = "slow_body"
    /// No caller proven within `unprovenTimeout`.
    case unproven
  }

  func count(_ cut: Cut) {
    countCut(listener, cut.rawValue)
  }

  /// When a body of `bytes` bytes, begun at `start`, falls below the minimum rate: `bodyRateGrace`
  /// after `start` plus the time `bytes + 1` take at `minBodyBytesPerSecond`.
  func bodyRateDeadline(start: NIODeadline, bytes: Int) -> NIODeadline {
    let perByte = Int64(1_000_000_000) / Int64(max(1, minBodyBytesPerSecond))
    let (allowance, overflow) = Int64(bytes + 1).multipliedReportingOverflow(by: max(1, perByte))
    return start + bodyRateGrace + .nanoseconds(overflow ? Int64.max / 4 : allowance)
  }
}

/// The event a handler fires on a connection's pipeline once the connection has proven a caller
/// (the HTTP door: a request whose key the gate accepted): `HTTPConnectionGuard` then stops its
/// `unprovenTimeout`.
public struct HTTPConnectionProven: Sendable {
  public init() {}
}
