import Testing

@testable import TollgateBench

@Suite("Latency histogram")
struct LatencyRecorderTests {
  /// Within the histogram's 3 significant digits.
  static func close(_ value: Double, _ expected: Double) -> Bool { abs(value - expected) <= expected * 0.001 + 0.001 }

  @Test("percentiles of 1…10000 µs")
  func percentiles() {
    var recorder = LatencyRecorder()
    for us in 1...10_000 { recorder.record(ns: UInt64(us) * 1_000) }
    let summary = recorder.summary
    #expect(recorder.count == 10_000)
    #expect(Self.close(summary.p50Us, 5_000), "\(summary.p50Us)")
    #expect(Self.close(summary.p90Us, 9_000), "\(summary.p90Us)")
    #expect(Self.close(summary.p99Us, 9_900), "\(summary.p99Us)")
    #expect(Self.close(summary.p999Us, 9_990), "\(summary.p999Us)")
    #expect(Self.close(summary.maxUs, 10_000), "\(summary.maxUs)")
    #expect(Self.close(summary.meanUs, 5_000.5), "\(summary.meanUs)")
  }

  @Test("one outlier in a thousand shows at p99.9 and max, not at p99")
  func outlier() {
    var recorder = LatencyRecorder()
    for _ in 0..<999 { recorder.record(ns: 100_000) }
    recorder.record(ns: 250_000_000)
    let summary = recorder.summary
    #expect(Self.close(summary.p99Us, 100))
    #expect(Self.close(summary.maxUs, 250_000))
    #expect(Self.close(summary.p999Us, 100) || Self.close(summary.p999Us, 250_000))
  }

  @Test("merging two threads' histograms is recording everything in one")
  func merge() {
    var a = LatencyRecorder()
    var b = LatencyRecorder()
    var both = LatencyRecorder()
    for n in 0..<5_000 {
      let ns = UInt64(n % 977) * 1_337 + 500
      if n % 3 == 0 { a.record(ns: ns) } else { b.record(ns: ns) }
      both.record(ns: ns)
    }
    a.merge(b)
    #expect(a.count == both.count)
    #expect(a.summary == both.summary)
  }

  @Test("empty and out-of-range values")
  func edges() {
    #expect(LatencyRecorder().summary == LatencySummary())
    var recorder = LatencyRecorder()
    recorder.record(ns: 0)
    recorder.record(ns: UInt64.max)
    #expect(recorder.count == 2)
    #expect(recorder.summary.maxUs >= 99_000_000)
  }
}
