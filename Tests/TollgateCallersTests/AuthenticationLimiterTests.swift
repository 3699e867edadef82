import Testing
import TollgateCallers

@Suite("Failed authentications per source: a token bucket per address in a bounded table")
struct AuthenticationLimiterTests {
  static let second: UInt64 = 1_000_000_000
  let alice = PeerSource.ipv4(0xC000_0201)
  let mallory = PeerSource.ipv4(0xC000_0202)

  @Test("a source's failures use up its burst; it may try again once a failure's worth has refilled")
  func burstAndRefill() {
    let limiter = AuthenticationLimiter(perMinute: 6, burst: 3, maximumSources: 16)
    for _ in 0..<3 {
      #expect(limiter.mayAttempt(mallory, nowNs: 0).allowed)
      limiter.recordFailure(mallory, nowNs: 0)
    }
    let refused = limiter.mayAttempt(mallory, nowNs: 0)
    #expect(!refused.allowed)
    #expect(refused.retryAfterMs == 10_000)
    #expect(limiter.mayAttempt(alice, nowNs: 0).allowed, "another address is counted apart")
    #expect(!limiter.mayAttempt(mallory, nowNs: 9 * Self.second).allowed)
    #expect(limiter.mayAttempt(mallory, nowNs: 10 * Self.second).allowed)
    limiter.recordFailure(mallory, nowNs: 10 * Self.second)
    #expect(!limiter.mayAttempt(mallory, nowNs: 10 * Self.second).allowed, "one refilled, one used")
  }

  @Test("an IPv6 /64 is one source; a Unix socket's users are one source each")
  func sources() {
    let limiter = AuthenticationLimiter(perMinute: 1, burst: 1, maximumSources: 16)
    limiter.recordFailure(.ipv6Prefix(0x2001_0db8_0000_0001), nowNs: 0)
    #expect(!limiter.mayAttempt(.ipv6Prefix(0x2001_0db8_0000_0001), nowNs: 0).allowed)
    #expect(limiter.mayAttempt(.ipv6Prefix(0x2001_0db8_0000_0002), nowNs: 0).allowed)
    limiter.recordFailure(.localUser(uid: 1000), nowNs: 0)
    #expect(!limiter.mayAttempt(.localUser(uid: 1000), nowNs: 0).allowed)
    #expect(limiter.mayAttempt(.localUser(uid: 0), nowNs: 0).allowed)
    #expect("\(PeerSource.ipv6Prefix(0x2001_0db8_0000_0001))" == "2001:db8:0:1::/64")
    #expect("\(PeerSource.ipv4(0xC000_0201))" == "192.0.2.1")
  }

  @Test("the table holds at most maximumSources; sources past it share one overflow bucket that still counts")
  func boundedTable() {
    let limiter = AuthenticationLimiter(perMinute: 1, burst: 2, maximumSources: 100)
    for address in 0..<10_000 as Range<UInt32> {
      limiter.recordFailure(.ipv4(address), nowNs: Self.second)
    }
    #expect(limiter.trackedSources == 100)
    #expect(limiter.mayAttempt(.ipv4(5), nowNs: Self.second).allowed, "one failure of its burst of two")
    // Every source outside the table shares the overflow bucket, long empty.
    #expect(!limiter.mayAttempt(.ipv4(50_000), nowNs: Self.second).allowed)
    #expect(!limiter.mayAttempt(.ipv4(9_999), nowNs: Self.second).allowed)
  }

  @Test("a full table drops the buckets that have refilled to make room for new sources")
  func refilledBucketsAreDropped() {
    let limiter = AuthenticationLimiter(perMinute: 60, burst: 1, maximumSources: 2)
    limiter.recordFailure(alice, nowNs: 0)
    limiter.recordFailure(mallory, nowNs: 0)
    #expect(limiter.trackedSources == 2)
    // Two seconds later both have refilled: a new source takes a place of its own.
    let third = PeerSource.ipv4(7)
    limiter.recordFailure(third, nowNs: 2 * Self.second)
    #expect(limiter.trackedSources == 1)
    #expect(!limiter.mayAttempt(third, nowNs: 2 * Self.second).allowed)
    #expect(limiter.mayAttempt(alice, nowNs: 2 * Self.second).allowed)
  }
}
