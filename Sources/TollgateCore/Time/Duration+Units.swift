extension Duration {
  /// Whole milliseconds (truncated).
  public var milliseconds: Int64 {
    components.seconds * 1_000 + components.attoseconds / 1_000_000_000_000_000
  }

  /// Whole nanoseconds (truncated): what NIO's `TimeAmount` and AsyncHTTPClient's deadlines take.
  public var nanoseconds: Int64 {
    components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
  }
}
