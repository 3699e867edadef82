/// Polls `condition` every millisecond until it holds or `timeout` passes; returns how long it
/// took, or nil.
public func eventually(timeout: Duration = .seconds(5), _ condition: () async throws -> Bool) async rethrows
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
