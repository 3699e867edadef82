import Synchronization

/// Lets through a few log lines per key and minute, and counts the rest: a flood of forged
/// notifications or failed authentications is counted in full (metrics) but cannot flood the log.
/// The first line of the next minute says how many were left out.
///
/// Keys should come from a small vocabulary (a route, a failure kind), never from what a stranger
/// sent. Even so the table is bounded: it holds at most `maximumKeys` windows; a new key finding it
/// full first evicts the windows of keys not seen for a minute (their counts are dropped with
/// them), and when none is that old it is counted under one shared overflow key, which is sampled
/// like any other. So a flood of distinct keys costs a fixed amount of memory and at most
/// `perMinute` lines a minute beyond those of the keys already held.
public final class LogSampler: Sendable {
  private struct Window {
    var startedAtMs: Int64
    var seenAtMs: Int64
    var logged = 0
    var skipped = 0

    init(startedAtMs: Int64) {
      self.startedAtMs = startedAtMs
      self.seenAtMs = startedAtMs
    }
  }

  private struct Table {
    var windows: [String: Window] = [:]
    /// When stale windows were last looked for (at most once a second while full).
    var prunedAtMs: Int64?
  }

  /// The key every occurrence is counted under once the table is full.
  public static let overflowKey = "(other keys: the sampler's table is full)"
  private static let windowMs: Int64 = 60_000

  private let table = Mutex(Table())
  public let perMinute: Int
  /// The most keys held, the overflow key included.
  public let maximumKeys: Int

  public init(perMinute: Int = 10, maximumKeys: Int = 256) {
    self.perMinute = perMinute
    self.maximumKeys = max(1, maximumKeys)
  }

  /// How many keys the sampler holds now.
  public var keyCount: Int { table.withLock { $0.windows.count } }

  /// Whether to log this occurrence of `key` at `nowMs`, and how many were left out of the log
  /// since the last line that was (reported once, with the next line let through).
  public func admit(_ key: String, nowMs: Int64) -> (log: Bool, skippedBefore: Int) {
    table.withLock { table in
      let key = held(key, in: &table, nowMs: nowMs)
      var window = table.windows[key] ?? Window(startedAtMs: nowMs)
      var skippedBefore = 0
      if nowMs - window.startedAtMs >= Self.windowMs {
        skippedBefore = window.skipped
        window = Window(startedAtMs: nowMs)
      }
      window.seenAtMs = nowMs
      let log = window.logged < perMinute
      if log { window.logged += 1 } else { window.skipped += 1 }
      table.windows[key] = window
      return (log, log ? skippedBefore : 0)
    }
  }

  /// `key` if the table holds it or has room for it (after evicting stale windows), else the
  /// overflow key.
  private func held(_ key: String, in table: inout Table, nowMs: Int64) -> String {
    // One place is kept for the overflow key.
    let room = maximumKeys - (table.windows[Self.overflowKey] == nil ? 1 : 0)
    guard table.windows[key] == nil, table.windows.count >= room else { return key }
    if table.prunedAtMs.map({ nowMs - $0 >= 1_000 }) ?? true {
      table.prunedAtMs = nowMs
      table.windows = table.windows.filter { entry in
        entry.key == Self.overflowKey || nowMs - entry.value.seenAtMs < Self.windowMs
      }
      if table.windows.count < room { return key }
    }
    return Self.overflowKey
  }
}
