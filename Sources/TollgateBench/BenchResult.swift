/// What a benchmark run measured (`tollgate bench --json` prints it).
public struct BenchResult: Sendable, Hashable, Codable {
  public var configuration: BenchConfiguration
  /// "closed" (each connection keeps `pipeline` in flight) or "open" (fixed rate).
  public var loop: String
  /// Length of the measured window.
  public var measuredSeconds: Double
  /// Answers received in the measured window.
  public var requests: Int
  public var throughputPerSecond: Double
  public var latency: LatencySummary
  /// Share of measured IsSubscriber answers that said `active: true`.
  public var activeShare: Double
  public var sent: Int
  public var errors: Errors
  /// CPU time the load generator's own threads used from the start of the run to its end.
  public var generatorCPUSeconds: Double
  /// That CPU time as a share of one core over the run's wall time (1 = a whole core).
  public var generatorCPUShare: Double

  public struct Errors: Sendable, Hashable, Codable {
    public var serviceFailed: Int
    public var tooManyPending: Int
    /// Answers carrying a request id that was not outstanding.
    public var unmatched: Int
    public var connectionsLost: Int
    /// Requests never answered (lost with a connection, or still outstanding at the end).
    public var unanswered: Int

    public var total: Int { serviceFailed + tooManyPending + unmatched + connectionsLost + unanswered }
  }

  /// The human-readable report.
  public var text: String {
    let c = configuration
    let mode = c.rate.map { "open loop at \(Self.number($0)) req/s" } ?? "closed loop"
    let window =
      c.requests.map { "\($0) requests" }
      ?? "\(Self.number(c.durationSeconds)) s (+\(Self.number(c.warmupSeconds)) s warm-up)"
    let mix =
      c.getSubscriptionShare > 0
      ? "\(Self.percent(1 - c.getSubscriptionShare)) IsSubscriber, \(Self.percent(c.getSubscriptionShare)) GetSubscription"
      : "IsSubscriber"
    let server =
      c.servers.map(\.description).joined(separator: ", ") + (c.tlsCAFile == nil ? "" : " (TLS)")
      + (c.caller.map { " as \($0)" } ?? "")
    var lines = [
      "tollgate bench → \(server): \(c.connections) connections × pipeline \(c.pipeline), \(mode), "
        + "\(c.threads) thread\(c.threads == 1 ? "" : "s"), \(window)",
      "  load        \(mix); \(c.users) users (\(c.distribution.rawValue)), hit ratio \(Self.percent(c.hitRatio))",
      "  throughput  \(Self.number(throughputPerSecond)) req/s (\(requests) answers in \(Self.number(measuredSeconds)) s)",
      "  latency µs  p50 \(Self.number(latency.p50Us))  p90 \(Self.number(latency.p90Us))  p99 \(Self.number(latency.p99Us))  "
        + "p99.9 \(Self.number(latency.p999Us))  max \(Self.number(latency.maxUs))",
      "  answers     active \(Self.percent(activeShare)) of IsSubscriber",
      "  generator   CPU \(Self.number(generatorCPUSeconds)) s, \(Self.percent(generatorCPUShare)) of a core",
    ]
    let e = errors
    lines.append(
      e.total == 0
        ? "  errors      none"
        : "  errors      service failed \(e.serviceFailed), too many pending \(e.tooManyPending), unmatched ids \(e.unmatched), "
          + "connections lost \(e.connectionsLost), unanswered \(e.unanswered)")
    return lines.joined(separator: "\n")
  }

  static func number(_ value: Double) -> String {
    if value >= 100 || value == value.rounded() { return String(Int(value.rounded())) }
    if value >= 10 { return String((value * 10).rounded() / 10) }
    return String((value * 100).rounded() / 100)
  }

  static func percent(_ share: Double) -> String { number(share * 100) + "%" }
}
