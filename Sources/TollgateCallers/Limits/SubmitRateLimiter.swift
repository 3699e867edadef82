import CTollgateNet
import Synchronization

/// SubmitPurchase calls allowed per caller: a token bucket per caller name (one for every
/// connection of a server without callers), refilled at `perSecond` up to `burst`. Shared by
/// every loop, so opening more connections does not raise a caller's rate.
public final class SubmitRateLimiter: Sendable {
  private struct Bucket {
    var tokens: Double
    var refilledAtNs: UInt64
  }

  public let perSecond: Double
  public let burst: Double
  private let buckets = Mutex<[String: Bucket]>([:])

  public init(perSecond: Int, burst: Int) {
    self.perSecond = Double(max(1, perSecond))
    self.burst = Double(max(1, burst))
  }

  /// Takes one call from `caller`'s bucket; false when it is empty.
  public func admit(_ caller: String?, nowNs: UInt64 = tg_net_now_ns()) -> Bool {
    buckets.withLock { buckets in
      let key = caller ?? ""
      var bucket = buckets[key] ?? Bucket(tokens: burst, refilledAtNs: nowNs)
      let elapsed = Double(nowNs &- bucket.refilledAtNs) / 1e9
      bucket.tokens = min(burst, bucket.tokens + max(0, elapsed) * perSecond)
      bucket.refilledAtNs = nowNs
      let admitted = bucket.tokens >= 1
      if admitted { bucket.tokens -= 1 }
      buckets[key] = bucket
      return admitted
    }
  }
}
