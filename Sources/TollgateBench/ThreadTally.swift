/// What one load-generator thread counted.
struct ThreadTally: Sendable {
  var latency = LatencyRecorder()
  /// Requests written to sockets.
  var sent = 0
  /// Answers received inside the measured window (what throughput counts).
  var measured = 0
  /// Every answer received, warm-up and drain included.
  var answered = 0
  /// Measured IsSubscriber answers with `active: true`.
  var active = 0
  var measuredIsSubscriber = 0
  var serviceFailed = 0
  var tooManyPending = 0
  /// Answers whose request id was not outstanding (never sent, or answered twice).
  var unmatched = 0
  /// Connections the server closed (or that failed) during the run.
  var connectionsLost = 0
  /// Requests outstanding on a connection when it was lost, or still unanswered at the end.
  var unanswered = 0
  /// CPU time the thread spent generating the load (from the start to the end of the run).
  var cpuNs: UInt64 = 0

  mutating func merge(_ other: ThreadTally) {
    latency.merge(other.latency)
    sent += other.sent
    measured += other.measured
    answered += other.answered
    active += other.active
    measuredIsSubscriber += other.measuredIsSubscriber
    serviceFailed += other.serviceFailed
    tooManyPending += other.tooManyPending
    unmatched += other.unmatched
    connectionsLost += other.connectionsLost
    unanswered += other.unanswered
    cpuNs += other.cpuNs
  }
}

/// When a run starts sending, starts and stops measuring, and gives up waiting for stragglers.
struct Timeline: Sendable {
  var startNs: UInt64
  var measureStartNs: UInt64
  /// Timed runs stop sending here; request-count runs ignore it.
  var measureEndNs: UInt64
  /// After this, unanswered requests are abandoned.
  var giveUpNs: UInt64
}
