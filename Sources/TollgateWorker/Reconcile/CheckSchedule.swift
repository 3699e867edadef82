import TollgateCore

/// When to verify a subscription again: just after the next moment its state can change by
/// itself (an expiry, the end of a grace period or of the renewal leeway), and at the latest at
/// the slow sweep.
enum CheckSchedule {
  static func next(after evaluation: SubscriptionEvaluation, nowMs: Int64, settings: WorkerSettings) -> Int64 {
    var candidates = [nowMs + settings.sweepIntervalMs]
    for boundary in [evaluation.expiresAtMs, evaluation.accessEndsAtMs, evaluation.gracePeriodExpiresAtMs ?? Int64.max]
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

/// Exponential backoff with jitter for store trouble, honouring Retry-After.
struct Backoff: Sendable {
  var baseMs: Int64
  var maxMs: Int64

  func delayMs(attempt: Int, retryAfterMs: Int64? = nil) -> Int64 {
    let exponent = min(max(attempt - 1, 0), 30)
    let ceiling = min(maxMs, baseMs.multipliedReportingOverflow(by: Int64(1) << exponent).partialValue)
    let jittered = ceiling / 2 + Int64.random(in: 0...max(ceiling / 2, 0))
    return max(jittered, retryAfterMs ?? 0)
  }
}
