/// Polls `condition` every millisecond until it holds or `timeout` passes; returns how long it
/// took, or nil. The default timeout only catches a hang: a condition that holds returns at once,
/// and the parallel unit run starts a thousand tests together on two cores, so a test can wait
/// several seconds for a thread before its condition is even looked at.
public func eventually(timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async rethrows
  -> Duration?
{
  let clock = ContinuousClock()
  let start = clock.now
  while clock.now - start < timeout {
    if try await condition() { return clock.now - start }
    try? await Task.sleep(for: .milliseconds(1))
  }
  return nil
}
