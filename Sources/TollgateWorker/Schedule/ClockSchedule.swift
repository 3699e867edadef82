/// Work the worker repeats on its own clock (which may follow a simulator's and jump ahead).
enum ClockSchedule {
  /// Runs `body` now, then again once `intervalMs` of the worker's clock have passed, until the
  /// task is cancelled (or `body` throws); the clock is looked at once a second.
  static func every(
    _ intervalMs: Int64, nowMs: @Sendable () -> Int64, _ body: (_ nowMs: Int64) async throws -> Void
  ) async rethrows {
    var nextAtMs = nowMs()
    while !Task.isCancelled {
      let now = nowMs()
      if now >= nextAtMs {
        try await body(now)
        nextAtMs = now + intervalMs
      }
      try? await Task.sleep(for: .seconds(1))
    }
  }
}
