import Histogram

/// Latencies in nanoseconds in an HDR histogram (3 significant digits, 1 ns … 100 s), reported
/// in microseconds. The load generator's, and any other measurement's (`bench visibility`).
public struct LatencyRecorder: Sendable {
  static let highestTrackableNs: UInt64 = 100_000_000_000
  private(set) var histogram = Histogram<UInt64>(
    lowestDiscernibleValue: 1, highestTrackableValue: LatencyRecorder.highestTrackableNs,
    numberOfSignificantValueDigits: .three)

  public init() {}

  mutating func record(ns: UInt64) {
    _ = histogram.record(min(max(ns, 1), Self.highestTrackableNs))
  }

  public mutating func record(_ duration: Duration) {
    let (seconds, attoseconds) = duration.components
    record(ns: UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000))
  }

  public mutating func merge(_ other: LatencyRecorder) { histogram.add(other.histogram) }

  public var count: UInt64 { histogram.totalCount }

  /// The summary a report prints.
  public var summary: LatencySummary {
    func us(_ ns: UInt64) -> Double { Double(ns) / 1_000 }
    guard histogram.totalCount > 0 else { return LatencySummary() }
    return LatencySummary(
      p50Us: us(histogram.valueAtPercentile(50)), p90Us: us(histogram.valueAtPercentile(90)),
      p99Us: us(histogram.valueAtPercentile(99)), p999Us: us(histogram.valueAtPercentile(99.9)),
      maxUs: us(histogram.max), meanUs: histogram.mean / 1_000)
  }
}

/// Latency percentiles in microseconds.
public struct LatencySummary: Sendable, Hashable, Codable {
  public var p50Us = 0.0
  public var p90Us = 0.0
  public var p99Us = 0.0
  public var p999Us = 0.0
  public var maxUs = 0.0
  public var meanUs = 0.0
}
