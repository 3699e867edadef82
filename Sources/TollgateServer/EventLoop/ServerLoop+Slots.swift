import CTollgateNet

extension ServerLoop {
  // MARK: Slots kept for connections that proved themselves

  /// The open connections (over every loop) from which a new connection takes the slot of an
  /// unproven one instead of adding to them.
  var evictionThreshold: Int {
    let maximum = shared.config.maximumConnections
    let reserved = shared.config.reservedConnections ?? maximum / 10
    return max(0, maximum - max(0, reserved))
  }

  /// Closes this loop's oldest connection that has not proven itself (nothing answered yet, or no
  /// authenticated caller while callers are configured). Each entry is looked at once: a closed
  /// or proven connection leaves the queue for good, so making room costs O(1) amortised.
  func evictOldestUnproven() {
    while unprovenHead < unproven.count {
      let token = unproven[unprovenHead]
      unprovenHead += 1
      guard let connection = connection(for: token), connection.isUnproven else { continue }
      sampledWarning(
        "connection closed to make room: the server nears its maximum of connections",
        metadata: ["rpc.max_connections": "\(shared.config.maximumConnections)"])
      close(connection)
      return
    }
  }

  /// Drops closed and proven connections from the queue (from the sweep, once a second), so that
  /// it holds no more than the connections that may still be evicted.
  func pruneUnproven() {
    guard !unproven.isEmpty else { return }
    var kept = 0
    for index in unprovenHead..<unproven.count {
      let token = unproven[index]
      guard let connection = connection(for: token), connection.isUnproven else { continue }
      unproven[kept] = token
      kept += 1
    }
    unproven.removeSubrange(kept...)
    unprovenHead = 0
  }
}
