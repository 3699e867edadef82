import Testing
import TollgateCore

@Suite("Sampled logging of refused notifications")
struct LogSamplerTests {
  @Test("a few lines per key and minute; the next minute's first line says how many were left out")
  func sampling() {
    let sampler = LogSampler(perMinute: 3)
    let first = (0..<10).map { sampler.admit("r refused", nowMs: 1_000 + Int64($0)) }
    #expect(first.map(\.log) == [true, true, true, false, false, false, false, false, false, false])
    #expect(sampler.admit("other", nowMs: 1_500).log, "keys are counted apart")
    let next = sampler.admit("r refused", nowMs: 61_000)
    #expect(next.log && next.skippedBefore == 7)
    #expect(sampler.admit("r refused", nowMs: 61_001).skippedBefore == 0)
  }
}

@Suite("The log sampler's table is bounded")
struct LogSamplerBoundTests {
  @Test("a flood of distinct keys keeps at most maximumKeys and logs at most perMinute lines beyond them")
  func distinctKeys() {
    let sampler = LogSampler(perMinute: 2, maximumKeys: 8)
    var logged = 0
    for number in 0..<5_000 where sampler.admit("caller-\(number)", nowMs: 1_000 + Int64(number % 100)).log {
      logged += 1
    }
    #expect(sampler.keyCount <= 8)
    // 7 keys of their own (2 lines each, one line apiece here) and the overflow key's 2.
    #expect(logged <= 7 * 2 + 2)
    let overflow = sampler.admit(LogSampler.overflowKey, nowMs: 2_000)
    #expect(!overflow.log, "the overflow key counted the rest: its lines for the minute are used up")
  }

  @Test("keys not seen for a minute are evicted for new ones; a key held keeps its window")
  func staleWindowsAreEvicted() {
    let sampler = LogSampler(perMinute: 1, maximumKeys: 3)
    #expect(sampler.admit("a", nowMs: 0).log)
    #expect(sampler.admit("b", nowMs: 0).log)
    #expect(sampler.admit("c", nowMs: 10).log, "no room for c: the overflow key's first line")
    #expect(!sampler.admit("d", nowMs: 20).log, "d shares the overflow key's window")
    #expect(!sampler.admit("b", nowMs: 30_000).log, "b keeps its own window")
    // A minute after a was last seen, a new key takes its place.
    #expect(sampler.admit("e", nowMs: 60_000).log)
    #expect(sampler.keyCount == 3)
    #expect(!sampler.admit("e", nowMs: 60_001).log, "e has a window of its own now")
  }
}
