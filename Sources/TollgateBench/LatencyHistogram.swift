/// A latency histogram for measurements outside the load generator (e.g. change-feed
/// visibility): the same HDR histogram and summary as `tollgate bench`.
public struct LatencyHistogram: Sendable {
  private var recorder = LatencyRecorder()

  public init() {}

  public mutating func record(_ duration: Duration) {
    let (seconds, attoseconds) = duration.components
    recorder.record(ns: UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000))
  }

  public var count: UInt64 { recorder.count }
  public var summary: LatencySummary { recorder.summary }
}
