import ArgumentParser
import Foundation
import TollgateBench

struct Bench: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Measure a running service: load (the default), change-feed visibility, the inbox, worker throughput.",
    subcommands: [Load.self, Visibility.self, Client.self, Inbox.self, Workers.self, Worker.self],
    defaultSubcommand: Load.self)
}

extension Bench {
  struct Load: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Load-test a running service over the wire protocol and report throughput and latency.",
      discussion: """
        Closed loop by default: every connection keeps --pipeline requests in flight. With --rate the load \
        is open loop: requests go out on schedule whether or not earlier ones were answered, and latency \
        counts from the scheduled moment (coordinated omission corrected). Users are USER-PREFIX0 … \
        USER-PREFIX{N-1}, as `tollgate seed` writes them; --hit-ratio below 1 mixes in users that do not \
        exist. Latency percentiles come from an HDR histogram. With --caller every connection authenticates \
        first, and with --tls-ca completes its TLS handshake first: both before the load, unmeasured; a \
        refused caller or a certificate that does not verify stops the run. With --server given more than \
        once (replicas of the service), the connections are spread evenly over the servers: connection n \
        goes to the n-th server, round the list again; every server must be reachable. Exits 1 when any \
        request failed or went unanswered, 2 on bad usage or when a server cannot be reached.
        """)

    @Option(
      help:
        "The service: HOST:PORT, or unix:/path for its Unix domain socket (default 127.0.0.1:7701). Repeat it for replicas: the connections are spread over them."
    )
    var server: [String] = []

    @Option(
      help:
        "Authenticate every connection as this caller first; its key comes from the TOLLGATE_KEY environment variable.")
    var caller: String?

    @Option(
      help: "Speak TLS, trusting the CA certificates in this PEM file (the handshake ends before the load starts).")
    var tlsCA: String?

    @Option(help: "The name the server's TLS certificate must carry (default: the host of each --server).")
    var tlsServerName: String?

    @Option(help: "Connections.")
    var connections = 50

    @Option(help: "Requests in flight per connection (1 = unpipelined).")
    var pipeline = 1

    @Option(help: "Seconds to measure (after the warm-up).")
    var duration = 10.0

    @Option(help: "Send exactly this many requests instead of running for --duration (no warm-up).")
    var requests: Int?

    @Option(help: "Seconds of load before measuring starts.")
    var warmup = 1.0

    @Option(help: "Number of seeded users to ask about.")
    var users = 100_000

    @Option(help: "User id prefix.")
    var userPrefix = "user-"

    @Option(help: "The entitlement IsSubscriber asks about.")
    var entitlement = "premium"

    @Option(help: "How users are picked: uniform or zipf.")
    var distribution = "uniform"

    @Option(help: "Zipf exponent (with --distribution zipf).")
    var zipfExponent = 0.99

    @Option(help: "Share (0…1) of requests for seeded users; the rest ask about nobody.")
    var hitRatio = 1.0

    @Option(help: "Share (0…1) of requests that are GetSubscription instead of IsSubscriber.")
    var getSubscriptionShare = 0.0

    @Option(help: "Open loop at this many requests per second in total.")
    var rate: Double?

    @Option(help: "Load-generator threads.")
    var threads = 1

    @Option(help: "Seed of the request sequence.")
    var seed: UInt64 = 1

    @Flag(help: "Print the result as JSON.")
    var json = false

    func validate() throws {
      guard BenchConfiguration.Distribution(rawValue: distribution) != nil else {
        throw ValidationError("--distribution must be uniform or zipf")
      }
      for server in servers where Self.server(server) == nil {
        throw ValidationError("--server must be HOST:PORT or unix:/path, not \(server)")
      }
      let problems = configuration().problems()
      guard problems.isEmpty else { throw ValidationError(problems.joined(separator: "; ")) }
    }

    func configuration() -> BenchConfiguration {
      var c = BenchConfiguration()
      let parsed = servers.compactMap(Self.server)
      if let first = parsed.first {
        c.host = first.host
        c.port = first.port
        c.unixSocket = first.unixSocket
      }
      c.additionalServers = Array(parsed.dropFirst())
      c.caller = caller
      c.tlsCAFile = tlsCA
      c.tlsServerName = tlsServerName
      c.connections = connections
      c.pipeline = pipeline
      c.durationSeconds = duration
      c.requests = requests
      c.warmupSeconds = warmup
      c.users = users
      c.userPrefix = userPrefix
      c.entitlement = entitlement
      c.distribution = BenchConfiguration.Distribution(rawValue: distribution) ?? .uniform
      c.zipfExponent = zipfExponent
      c.hitRatio = hitRatio
      c.getSubscriptionShare = getSubscriptionShare
      c.rate = rate
      c.threads = threads
      c.seed = seed
      return c
    }

    /// `--server` as given, or the default.
    var servers: [String] { server.isEmpty ? ["127.0.0.1:7701"] : server }

    static func server(_ argument: String) -> BenchConfiguration.Server? {
      if argument.hasPrefix("unix:") { return .init(unixSocket: String(argument.dropFirst("unix:".count))) }
      return HostPort(argument: argument).map { .init(host: $0.host, port: $0.port) }
    }

    func run() throws {
      var key: String?
      if caller != nil {
        // Never on the command line, where `ps` shows it to everyone.
        key = ProcessInfo.processInfo.environment["TOLLGATE_KEY"]
        guard key?.isEmpty == false else {
          throw ValidationError("--caller needs the caller's key in the TOLLGATE_KEY environment variable")
        }
      }
      let result: BenchResult
      do {
        result = try BenchRunner.run(configuration(), callerKey: key)
      } catch {
        FileHandle.standardError.write(Data("tollgate bench: \(error)\n".utf8))
        throw ExitCode(2)
      }
      if json {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        print(String(decoding: try encoder.encode(result), as: UTF8.self))
      } else {
        print(result.text)
      }
      if result.errors.total > 0 { throw ExitCode(1) }
    }
  }
}
