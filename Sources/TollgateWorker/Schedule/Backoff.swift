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
