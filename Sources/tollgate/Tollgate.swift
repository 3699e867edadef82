import ArgumentParser

@main
struct Tollgate: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "tollgate",
    abstract: "Self-hosted entitlement service for App Store, Google Play and Amazon subscriptions.",
    subcommands: [Serve.self, Query.self, Seed.self]
  )
}
