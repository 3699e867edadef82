extension Duration {
  /// Whole milliseconds (truncated).
  var milliseconds: Int64 {
    components.seconds * 1_000 + components.attoseconds / 1_000_000_000_000_000
  }
}
