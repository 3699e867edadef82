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
