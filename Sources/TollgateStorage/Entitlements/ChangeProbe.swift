/// A cheap, synchronous test of whether the change feed may have moved since the last test: what
/// lets the service look often without reading the feed each time. Not thread-safe: one task or
/// thread uses it at a time.
public protocol ChangeProbe: AnyObject {
  /// True when something may have been committed since the previous call (and on the first
  /// call). A false answer is certain: nothing was committed in between.
  func mayHaveChanged() throws -> Bool
}
