extension EntitlementIndex {
  /// Takes every record of `fresh` in place of its own, in one step: readers see the old records
  /// until the swap and the new ones after it, never an empty or half-loaded index. `fresh` is
  /// left empty. The old records are freed after the lock is released. The access levels are this
  /// index's own (`setAccessLevels`), not `fresh`'s.
  public func replaceAll(with fresh: EntitlementIndex) {
    var records = fresh.state.withLock { state in
      var taken = State(accessLevels: state.accessLevels)
      swap(&taken, &state)
      return taken
    }
    state.withLock { state in
      records.accessLevels = state.accessLevels
      swap(&state, &records)
    }
  }
}
