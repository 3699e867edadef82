import ArgumentParser
import Foundation
import Synchronization
import TollgateClient

extension Bench {
  struct Client: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "swift-client",
      abstract: "Round trips per second of the Swift client (TollgateClient) on one connection.",
      discussion: """
        Asks IsSubscriber about USER-PREFIX0 … USER-PREFIX{N-1} in turn through one TollgateClient: \
        with --depth 1 each call waits for the previous answer; with a larger depth that many calls \
        are in flight at once on the same connection. For comparing the client libraries (clients/bench). \
        With --server given more than once (replicas), the client spreads its calls over them, one \
        connection to each.
        """)

    @Option(help: "The service, HOST:PORT (default 127.0.0.1:7701). Repeat it for replicas.")
    var server: [HostPort] = []

    @Option(help: "Seconds to run.")
    var seconds = 3.0

    @Option(help: "Calls in flight at once.")
    var depth = 1

    @Option(help: "Number of seeded users to ask about.")
    var users = 1_000

    @Option(help: "User id prefix.")
    var userPrefix = "user-"

    func validate() throws {
      guard seconds > 0, depth >= 1, users >= 1 else {
        throw ValidationError("--seconds, --depth and --users must be positive")
      }
    }

    func run() async throws {
      let servers = server.isEmpty ? [HostPort(host: "127.0.0.1", port: 7701)] : server
      let client = try TollgateClient(endpoints: servers.map { .tcp(host: $0.host, port: $0.port) })
      let clock = ContinuousClock()
      let deadline = clock.now + .milliseconds(Int64(seconds * 1_000))
      let prefix = userPrefix
      let users = users
      let started = clock.now
      let total = try await withThrowingTaskGroup(of: Int.self) { group in
        for lane in 0..<depth {
          group.addTask {
            var calls = 0
            var n = lane
            while clock.now < deadline {
              _ = try await client.isSubscriber(userId: prefix + String(n % users), entitlement: "premium")
              calls += 1
              n += depth
            }
            return calls
          }
        }
        return try await group.reduce(0, +)
      }
      let elapsed = clock.now - started
      await client.close()
      let perSecond = Double(total) / (elapsed / .seconds(1))
      print("swift client: \(Int(perSecond)) round trips/s (depth \(depth), \(total) calls)")
    }
  }
}
