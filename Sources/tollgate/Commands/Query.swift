import ArgumentParser
import Foundation
import NIOSSL
import TollgateClient

struct Query: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Ask a running service about a user.",
    subcommands: [IsSubscriber.self, Subscription.self, Health.self])

  struct Connection: ParsableArguments {
    @Option(
      help: ArgumentHelp(
        "The service: HOST:PORT, or unix:/path for its Unix domain socket (default 127.0.0.1:7701).",
        discussion:
          "Repeat it to name replicas of the service: the question goes to one of them, and to another when that one cannot be reached or its connection dies."
      ))
    var server: [String] = []

    @Option(help: "Authenticate as this caller; its key comes from the TOLLGATE_KEY environment variable.")
    var caller: String?

    @Option(help: "Speak TLS, trusting the CA certificates in this PEM file.")
    var tlsCA: String?

    @Flag(help: "Print JSON (proto field names in lowerCamelCase).")
    var json = false

    @Option(help: "Timeout in milliseconds (with several --server, each connection attempt gets its share).")
    var timeoutMs: Int64 = 5_000

    func client() throws -> TollgateClient {
      try Self.makeClient(servers: server, caller: caller, tlsCA: tlsCA, timeoutMs: timeoutMs)
    }
  }

  struct IsSubscriber: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "is-subscriber", abstract: "Is USER entitled to ENTITLEMENT now? Exit 0 if yes, 1 if no.")

    @Argument var user: String
    @Argument var entitlement: String
    @OptionGroup var connection: Connection

    func run() async throws {
      let client = try connection.client()
      let response = try await QueryOutput.perform {
        try await client.isSubscriber(userId: user, entitlement: entitlement)
      }
      print(
        connection.json
          ? try QueryJSON.encode(QueryJSON.Status(response))
          : QueryOutput.text(response, user: user, entitlement: entitlement))
      if !response.active { throw ExitCode(1) }
    }
  }

  struct Subscription: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Every subscription and entitlement of USER.")

    @Argument var user: String
    @OptionGroup var connection: Connection

    func run() async throws {
      let client = try connection.client()
      let response = try await QueryOutput.perform { try await client.getSubscription(userId: user) }
      print(connection.json ? try QueryJSON.encode(QueryJSON.GetSubscription(response)) : QueryOutput.text(response))
    }
  }

  struct Health: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "The service's health and index size.",
      discussion:
        "Exits 0 only when the service answers SERVING; 1 for any other answer (DEGRADED: answering, perhaps stale; NOT_SERVING; or a status this client does not know), so a probe or a script can take the exit alone; 2 when it cannot be asked. The answer is printed either way. With several --server, the first one that can be reached answers for itself: ask each replica apart to see them all."
    )

    @OptionGroup var connection: Connection

    func run() async throws {
      let client = try connection.client()
      let response = try await QueryOutput.perform { try await client.health() }
      print(connection.json ? try QueryJSON.encode(QueryJSON.Health(response)) : QueryOutput.text(response))
      // Anything but SERVING is not healthy (issue 29): DEGRADED too, whose reason is printed.
      guard response.status == .serving else { throw ExitCode(1) }
    }
  }
}
