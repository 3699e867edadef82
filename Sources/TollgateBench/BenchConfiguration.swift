/// What `tollgate bench` runs: where, how hard, and which requests.
public struct BenchConfiguration: Sendable, Hashable, Codable {
  public enum Distribution: String, Sendable, Hashable, Codable, CaseIterable {
    /// Every seeded user equally likely.
    case uniform
    /// A few users take most requests (Zipf over the user's rank, exponent `zipfExponent`).
    case zipf
  }

  /// Where a load connection connects: `host:port`, or a Unix domain socket.
  public struct Server: Sendable, Hashable, Codable {
    public var host: String
    public var port: Int
    /// Connect to this Unix domain socket instead of `host:port`.
    public var unixSocket: String?

    public init(host: String = "127.0.0.1", port: Int = 7400, unixSocket: String? = nil) {
      self.host = host
      self.port = port
      self.unixSocket = unixSocket
    }

    public var description: String { unixSocket.map { "unix:\($0)" } ?? "\(host):\(port)" }
  }

  public var host = "127.0.0.1"
  public var port = 7400
  /// Connect to this Unix domain socket instead of `host:port`.
  public var unixSocket: String?
  /// More servers (replicas of `tollgate serve`) beside the one above: connection n goes to
  /// `servers[n % servers.count]`, so the connections are spread evenly over them.
  public var additionalServers: [Server] = []
  /// Speak TLS, trusting the CA certificates in this PEM file; the server's certificate must name
  /// `tlsServerName` (default: `host`). The handshake ends before the load starts.
  public var tlsCAFile: String?
  public var tlsServerName: String?
  /// Authenticate every connection as this caller before the load starts (its key is given to
  /// `BenchRunner.run` apart, so that it is never printed with the configuration).
  public var caller: String?
  /// TCP connections, spread evenly over `threads`.
  public var connections = 50
  /// Requests in flight per connection (1 = unpipelined).
  public var pipeline = 1
  /// How long to measure, after the warm-up. Ignored when `requests` is set.
  public var durationSeconds = 10.0
  /// Send exactly this many requests (all measured; no warm-up) instead of running for a duration.
  public var requests: Int?
  /// Time before measuring starts (connections warm, caches filled); its answers are not counted.
  public var warmupSeconds = 1.0
  /// Users `userPrefix0` … `userPrefix{users-1}`, as `tollgate seed` writes them.
  public var users = 100_000
  public var userPrefix = "user-"
  public var entitlement = "premium"
  public var distribution = Distribution.uniform
  public var zipfExponent = 0.99
  /// Share of requests for seeded users; the rest ask about users that do not exist (misses).
  public var hitRatio = 1.0
  /// Share of requests that are GetSubscription rather than IsSubscriber.
  public var getSubscriptionShare = 0.0
  /// Open loop: this many requests per second in total, sent on schedule whether or not earlier
  /// ones were answered; latency counts from the scheduled moment (coordinated omission
  /// corrected). `nil`: closed loop, each connection keeps `pipeline` requests in flight.
  public var rate: Double?
  /// Load-generator threads (each runs its own epoll loop).
  public var threads = 1
  /// Seed of the request sequence, so two runs ask the same questions.
  public var seed: UInt64 = 1

  public init() {}

  /// Every server, the first one (`host`, `port`, `unixSocket`) first.
  public var servers: [Server] { [Server(host: host, port: port, unixSocket: unixSocket)] + additionalServers }

  /// Every problem with the configuration, as one message per problem.
  public func problems() -> [String] {
    var problems: [String] = []
    if connections < 1 { problems.append("connections must be at least 1") }
    if pipeline < 1 || pipeline > 65_536 { problems.append("pipeline must be between 1 and 65536") }
    if threads < 1 { problems.append("threads must be at least 1") }
    if threads > connections { problems.append("threads (\(threads)) must not exceed connections (\(connections))") }
    if requests == nil, !(durationSeconds > 0) { problems.append("duration must be positive") }
    if let requests, requests < 1 { problems.append("requests must be at least 1") }
    if !(warmupSeconds >= 0) { problems.append("warm-up must not be negative") }
    if users < 1 { problems.append("users must be at least 1") }
    if !(0...1).contains(hitRatio) { problems.append("hit ratio must be between 0 and 1") }
    if !(0...1).contains(getSubscriptionShare) { problems.append("GetSubscription share must be between 0 and 1") }
    if !(zipfExponent > 0) { problems.append("zipf exponent must be positive") }
    if let rate, !(rate > 0) { problems.append("rate must be positive") }
    for server in servers {
      if server.unixSocket == nil, !(1...65_535).contains(server.port) {
        problems.append("port must be between 1 and 65535")
      }
      if let unixSocket = server.unixSocket, unixSocket.utf8.count >= 108 || unixSocket.isEmpty {
        problems.append("the Unix socket path must be 1 to 107 bytes")
      }
    }
    if tlsServerName != nil, tlsCAFile == nil { problems.append("a TLS server name needs a TLS CA file") }
    if let caller, caller.isEmpty { problems.append("the caller's name must not be empty") }
    return problems
  }
}
