import CTollgateNet

extension ServerLoop {
  // MARK: Slots kept for connections that proved themselves

  /// The open connections (over every loop) from which a new connection takes the slot of an
  /// unproven one instead of adding to them.
  var evictionThreshold: Int {
    max(0, shared.config.maximumConnections - reservedConnections)
  }

  /// The slots kept for connections that proved themselves.
  var reservedConnections: Int {
    max(0, shared.config.reservedConnections ?? shared.config.maximumConnections / 10)
  }

  /// Makes room for a connection just accepted, and says how many connections may then be open.
  /// Over the threshold, this loop's oldest unproven connection is closed. A loop with none to
  /// close (another loop holds the flood) may go over the cap by the reserve: the other loops'
  /// sweeps close their unproven connections until the total is back under the cap
  /// (`shedOverCap`), so a caller is not refused for landing on the quiet loop.
  func makeRoom() -> Int {
    guard shared.counters.openConnections >= evictionThreshold else { return shared.config.maximumConnections }
    return evictOldestUnproven()
      ? shared.config.maximumConnections : shared.config.maximumConnections + reservedConnections
  }

  /// From the sweep: while more than the cap are open (a loop went over it to let a connection
  /// in), this loop's unproven connections make room, oldest first.
  func shedOverCap() {
    while shared.counters.openConnections > shared.config.maximumConnections, evictOldestUnproven() {}
  }

  /// Closes this loop's oldest connection that has not proven itself (nothing answered yet, or no
  /// authenticated caller while callers are configured). Each entry is looked at once: a closed
  /// or proven connection leaves the queue for good, so making room costs O(1) amortised.
  @discardableResult
  func evictOldestUnproven() -> Bool {
    while unprovenHead < unproven.count {
      let token = unproven[unprovenHead]
      unprovenHead += 1
      guard let connection = connection(for: token), connection.isUnproven else { continue }
      countRefused("evicted_unproven")
      sampledWarning(
        "connection closed to make room: the server nears its maximum of connections",
        metadata: ["rpc.max_connections": "\(shared.config.maximumConnections)"])
      close(connection)
      return true
    }
    return false
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
