import CTollgateNet
import Synchronization

/// Failed Authenticate calls allowed per source (`PeerSource`: an IPv4 address, an IPv6 /64, a
/// local user), over every connection and every loop: a token bucket per source holding `burst`
/// failures, refilled at `perMinute`. A source whose bucket is empty has its Authenticate calls
/// refused without their key being checked, valid keys included, until a failure's worth has
/// refilled; a success takes nothing and gives nothing back. So reconnecting does not buy more
/// guesses, and neither does a valid key between them.
///
/// Only Authenticate touches it (one lock, one hash lookup), never an accepted connection or any
/// other call. The table is bounded: it holds at most `maximumSources` buckets; a new source finding
/// it full first drops the buckets that have refilled (they hold nothing a fresh one would not),
/// at most once a second, and when none has, it shares one overflow bucket with every other source
/// not in the table. An attacker with more addresses than the table holds gets the overflow
/// bucket's rate, not a rate per address.
public final class AuthenticationLimiter: Sendable {
  private struct Bucket {
    var tokens: Double
    var refilledAtNs: UInt64
  }

  private struct Table {
    var buckets: [PeerSource: Bucket] = [:]
    var overflow: Bucket?
    var prunedAtNs: UInt64?
  }

  /// Failures a source may make at once.
  public let burst: Double
  /// Failures a source's bucket regains per minute.
  public let perMinute: Double
  public let maximumSources: Int
  private let table = Mutex(Table())

  public init(perMinute: Int, burst: Int, maximumSources: Int) {
    self.perMinute = Double(max(1, perMinute))
    self.burst = Double(max(1, burst))
    self.maximumSources = max(1, maximumSources)
  }

  /// How many sources have a bucket of their own now.
  public var trackedSources: Int { table.withLock { $0.buckets.count } }

  /// Whether `source` may have a key checked now; when not, how long until it may (ms).
  public func mayAttempt(_ source: PeerSource, nowNs: UInt64 = tg_net_now_ns()) -> (allowed: Bool, retryAfterMs: Int64)
  {
    table.withLock { table in
      let bucket: Bucket?
      if let own = table.buckets[source] {
        bucket = own
      } else if table.buckets.count >= maximumSources {
        bucket = table.overflow
      } else {
        bucket = nil
      }
      guard let bucket else { return (true, 0) }
      let tokens = refilled(bucket, nowNs: nowNs).tokens
      guard tokens < 1 else { return (true, 0) }
      return (false, Int64(((1 - tokens) * 60_000 / perMinute).rounded(.up)))
    }
  }

  /// Counts a failed Authenticate against `source`.
  public func recordFailure(_ source: PeerSource, nowNs: UInt64 = tg_net_now_ns()) {
    table.withLock { table in
      if let own = table.buckets[source] {
        table.buckets[source] = charged(own, nowNs: nowNs)
      } else if hasRoom(in: &table, nowNs: nowNs) {
        table.buckets[source] = charged(Bucket(tokens: burst, refilledAtNs: nowNs), nowNs: nowNs)
      } else {
        table.overflow = charged(table.overflow ?? Bucket(tokens: burst, refilledAtNs: nowNs), nowNs: nowNs)
      }
    }
  }

  /// Whether a new source gets a bucket of its own, after dropping refilled ones if it is full.
  private func hasRoom(in table: inout Table, nowNs: UInt64) -> Bool {
    guard table.buckets.count >= maximumSources else { return true }
    if let pruned = table.prunedAtNs, nowNs &- pruned < 1_000_000_000 { return false }
    table.prunedAtNs = nowNs
    table.buckets = table.buckets.filter { refilled($0.value, nowNs: nowNs).tokens < burst }
    return table.buckets.count < maximumSources
  }

  private func refilled(_ bucket: Bucket, nowNs: UInt64) -> Bucket {
    let elapsedNs = nowNs >= bucket.refilledAtNs ? nowNs - bucket.refilledAtNs : 0
    let tokens = min(burst, bucket.tokens + Double(elapsedNs) / 60e9 * perMinute)
    return Bucket(tokens: tokens, refilledAtNs: max(nowNs, bucket.refilledAtNs))
  }

  /// One failure taken. Failures racing on several loops may take it below zero, which only
  /// delays the refill (never below one burst's worth).
  private func charged(_ bucket: Bucket, nowNs: UInt64) -> Bucket {
    var bucket = refilled(bucket, nowNs: nowNs)
    bucket.tokens = max(-burst, bucket.tokens - 1)
    return bucket
  }
}
