/// One store's budget window as stored (`WorkerStorage.reserveStoreCalls`): the arithmetic every
/// storage shares, so that each one grants alike.
public struct StoreCallWindow: Sendable, Hashable {
  public var startMs: Int64
  public var used: Int64

  /// The window a reservation for `windowStartMs` counts against, given the stored one (nil when
  /// the store has none yet): the stored window when it is as new or newer (a worker whose clock
  /// is behind spends the current window, never reopens an old one), else a fresh one.
  public init(stored: (startMs: Int64, used: Int64)?, windowStartMs: Int64) {
    if let stored, stored.startMs >= windowStartMs {
      self.startMs = stored.startMs
      self.used = stored.used
    } else {
      self.startMs = windowStartMs
      self.used = 0
    }
  }

  /// Grants up to `wanted` of what `limit` leaves, and the window after the grant.
  public func granting(_ wanted: Int, limit: Int) -> (granted: Int, window: StoreCallWindow) {
    let left = max(0, Int64(limit) - used)
    let granted = Int(min(Int64(max(0, wanted)), left))
    var after = self
    after.used += Int64(granted)
    return (granted, after)
  }
}
