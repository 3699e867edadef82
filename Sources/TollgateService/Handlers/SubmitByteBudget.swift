import Synchronization

/// Bytes of submissions each caller may store, per minute (issue 25): a token bucket per caller
/// name (one for every connection of a server without callers), holding at most a minute's
/// budget and refilled evenly. Before it, a `submit` key could write tens of MB a second of
/// submissions into the inbox within its call rate. Caller names come from the configured
/// callers, so the table stays as small as that list. Each `serve` process keeps its own.
final class SubmitByteBudget: Sendable {
  private struct Bucket {
    var bytes: Double
    var refilledAtMs: Int64
  }

  let bytesPerMinute: Int
  private let buckets = Mutex<[String: Bucket]>([:])

  init(bytesPerMinute: Int) {
    self.bytesPerMinute = max(1, bytesPerMinute)
  }

  /// Takes `bytes` from `caller`'s budget; false (and nothing taken) when it holds fewer.
  func take(_ bytes: Int, caller: String?, nowMs: Int64) -> Bool {
    buckets.withLock { buckets in
      let key = caller ?? ""
      let capacity = Double(bytesPerMinute)
      var bucket = buckets[key] ?? Bucket(bytes: capacity, refilledAtMs: nowMs)
      let elapsedMs = Double(max(0, nowMs - bucket.refilledAtMs))
      bucket.bytes = min(capacity, bucket.bytes + elapsedMs * capacity / 60_000)
      bucket.refilledAtMs = max(bucket.refilledAtMs, nowMs)
      let admitted = bucket.bytes >= Double(bytes)
      if admitted { bucket.bytes -= Double(bytes) }
      buckets[key] = bucket
      return admitted
    }
  }

  /// Gives back what `take` took for a submission that was not stored after all.
  func giveBack(_ bytes: Int, caller: String?) {
    buckets.withLock { buckets in
      let key = caller ?? ""
      guard var bucket = buckets[key] else { return }
      bucket.bytes = min(Double(bytesPerMinute), bucket.bytes + Double(bytes))
      buckets[key] = bucket
    }
  }
}
