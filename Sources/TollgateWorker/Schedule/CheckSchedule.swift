import TollgateCore

/// When to verify a subscription again: just after the next moment its state can change by
/// itself (an expiry, the end of a grace period or of the renewal leeway), and at the latest at
/// the slow sweep (rarely, for a chain whose access ended long ago: a dormant one). A chain whose
/// access ended more than `finalCheckAfterMs` ago has had its last scheduled check: nil, never
/// again by the clock (a notification or a submission for it still reads it).
enum CheckSchedule {
  /// - Parameter startsAtMs: when the chain's next period starts by the store's clock, if after
  ///   `nowMs` (clock skew, or a purchase that starts later, however far): it is checked again
  ///   then, to confirm it.
  static func next(
    after evaluation: SubscriptionEvaluation, nowMs: Int64, startsAtMs: Int64? = nil, settings: WorkerSettings
  ) -> Int64? {
    let ended = evaluation.state == .expired || evaluation.state == .revoked
    if ended, evaluation.accessEndsAtMs < nowMs - settings.finalCheckAfterMs { return nil }
    let dormant = ended && evaluation.accessEndsAtMs < nowMs - settings.dormantAfterMs
    var candidates = [nowMs + (dormant ? settings.dormantSweepIntervalMs : settings.sweepIntervalMs)]
    if ended, evaluation.accessEndsAtMs <= Int64.max - settings.finalCheckAfterMs - 1 {
      // One last look just past the horizon, then no more.
      candidates.append(max(nowMs + 1, evaluation.accessEndsAtMs + settings.finalCheckAfterMs + 1))
    }
    if let startsAtMs, startsAtMs > nowMs { candidates.append(startsAtMs + settings.recheckDelayMs) }
    let boundaries = [
      evaluation.expiresAtMs, evaluation.accessEndsAtMs, evaluation.gracePeriodExpiresAtMs ?? Int64.max,
      // A paused subscription resumes by itself then (Google Play).
      evaluation.pausedUntilMs ?? Int64.max,
    ]
    for boundary in boundaries
    where boundary > nowMs && boundary < Int64.max - settings.recheckDelayMs {
      candidates.append(boundary + settings.recheckDelayMs)
    }
    if evaluation.state == .billingRetry || evaluation.state == .onHold {
      // The store keeps retrying; look every few hours whether it recovered.
      candidates.append(nowMs + min(settings.sweepIntervalMs, 6 * 3_600_000))
    }
    return candidates.min()!
  }
}
