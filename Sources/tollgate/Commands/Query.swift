import ArgumentParser
import TollgateClient

struct Query: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Ask a running service about a user.",
    subcommands: [IsSubscriber.self, Subscription.self, Health.self])

  struct Connection: ParsableArguments {
    @Option(help: "The service, HOST:PORT.")
    var server: HostPort = HostPort(host: "127.0.0.1", port: 7701)

    @Flag(help: "Print JSON (proto field names in lowerCamelCase).")
    var json = false

    @Option(help: "Timeout in milliseconds.")
    var timeoutMs: Int64 = 5_000

    func client() -> TollgateClient {
      var config = TollgateClient.Config.defaults
      config.callTimeout = .milliseconds(timeoutMs)
      config.connectTimeout = .milliseconds(timeoutMs)
      return TollgateClient(host: server.host, port: server.port, config: config)
    }
  }

  struct IsSubscriber: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "is-subscriber", abstract: "Is USER entitled to ENTITLEMENT now? Exit 0 if yes, 1 if no.")

    @Argument var user: String
    @Argument var entitlement: String
    @OptionGroup var connection: Connection

    func run() async throws {
      let client = connection.client()
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
      let client = connection.client()
      let response = try await QueryOutput.perform { try await client.getSubscription(userId: user) }
      print(connection.json ? try QueryJSON.encode(QueryJSON.GetSubscription(response)) : QueryOutput.text(response))
    }
  }

  struct Health: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The service's health and index size.")

    @OptionGroup var connection: Connection

    func run() async throws {
      let client = connection.client()
      let response = try await QueryOutput.perform { try await client.health() }
      print(connection.json ? try QueryJSON.encode(QueryJSON.Health(response)) : QueryOutput.text(response))
    }
  }
}
