import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import TollgateClient
import TollgateDemo
import TollgateStorageFactory

struct Demo: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Run the store simulator, the worker and the service together, with demo users, until Ctrl-C.")

  @Option(help: "Folder for the database and the simulator's signing chain (default: a new temporary folder).")
  var data: String?

  @Option(
    help:
      "The database, instead of an SQLite file in the data folder: an SQLite file path (or sqlite:PATH), or postgres://USER@HOST:PORT/DATABASE?sslmode=MODE with the password in TOLLGATE_DATABASE_PASSWORD(_FILE)."
  )
  var database: String?

  @Option(help: "Service port.") var servicePort = 7701
  @Option(help: "Simulator port.") var simulatorPort = 7702
  @Option(help: "Worker (notifications) port.") var workerPort = 7703
  @Option(help: "Worker admin (/health, /metrics) port.") var workerAdminPort = 7704

  @OptionGroup var logging: LoggingOptions

  func run() async throws {
    let directory = data ?? NSTemporaryDirectory() + "tollgate-demo-\(UUID().uuidString.prefix(8))"
    // The database and the simulator's keys live here: only this account may look in (issue 25 item 7).
    try FileManager.default.createDirectory(
      atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    var options = logging
    if options.logLevel == .info { options.logLevel = .warning }
    let logger = options.makeLogger(label: "tollgate.demo")
    try await LocalStack.run(
      directory: directory, database: try database.map { try StorageLocation($0) },
      ports: .init(
        service: servicePort, simulator: simulatorPort, worker: workerPort, workerAdmin: workerAdminPort),
      environment: ProcessInfo.processInfo.environment, logger: logger
    ) { stack in
      let users = try await DemoUsers.create(on: stack)
      try await announce(stack: stack, users: users)
      // Until a shutdown signal; then LocalStack.run stops the three parts.
      let group = ServiceGroup(
        configuration: .init(
          services: [.init(service: UntilShutdown())], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
      try await group.run()
    }
  }

  private func announce(stack: LocalStack, users: [(user: String, answer: Tollgate_V1_IsSubscriberResponse)])
    async throws
  {
    let bin = CommandLine.arguments.first ?? "tollgate"
    let simulator = "http://127.0.0.1:\(simulatorPort)"
    var lines = [
      "",
      "Tollgate demo: service 127.0.0.1:\(servicePort), store simulator 127.0.0.1:\(simulatorPort), worker 127.0.0.1:\(await stack.workerPort)",
      "worker health and metrics: http://127.0.0.1:\(await stack.workerAdminPort)/health, /metrics",
      "database \(stack.databasePath)", "", "Demo users (bought through the simulator, verified by the worker):",
    ]
    for (user, answer) in users {
      let state = QueryOutput.name(answer.state)
      lines.append(
        "  \(user.padding(toLength: 22, withPad: " ", startingAt: 0)) premium: \(answer.active ? "yes" : "no ") (\(state))"
      )
    }
    lines += [
      "", "Ask it:",
      "  \(bin) query is-subscriber demo-active premium --server 127.0.0.1:\(servicePort)",
      "  \(bin) query subscription demo-grace --server 127.0.0.1:\(servicePort) --json",
      "Explain or grant, on the store's clock as the worker and the service follow it:",
      "  \(bin) explain demo-refunded premium --database \(stack.databasePath) --follow-clock \(simulator)",
      "  \(bin) explain demo-google-upgraded premium --database \(stack.databasePath) --follow-clock \(simulator)",
      "  \(bin) grant demo-vip premium --until 30d --note 'support' --database \(stack.databasePath) --follow-clock \(simulator)",
      "Move the store's clock (demo-active, demo-google-active and demo-amazon-active renew, the trials convert,",
      "demo-grace lapses into billing retry, demo-google-grace into account hold, demo-google-paused resumes):",
      "  \(bin) storesim advance 31d --sim 127.0.0.1:\(simulatorPort)",
      "Ctrl-C stops everything.", "",
    ]
    FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
  }
}

/// Returns on graceful shutdown (a signal): what keeps the demo up.
struct UntilShutdown: Service {
  func run() async throws {
    try? await gracefulShutdown()
  }
}
