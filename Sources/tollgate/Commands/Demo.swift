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
  @Option(help: "The support console's port (the HTTP door, /console; 0: any free port).") var consolePort = 7705

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
      environment: ProcessInfo.processInfo.environment, serviceAdmin: true, logger: logger
    ) { stack in
      let users = try await DemoUsers.create(on: stack)
      let console = try DemoConsole(stack: stack, port: consolePort, directory: directory, logger: logger)
      // Until a shutdown signal; then the console's door drains and LocalStack.run stops the
      // three parts. The door is only ever shut down gracefully (a cancelled Hummingbird
      // listener traps on connections it had accepted).
      let group = ServiceGroup(
        configuration: .init(
          services: [
            .init(
              service: console.door, successTerminationBehavior: .gracefullyShutdownGroup,
              failureTerminationBehavior: .gracefullyShutdownGroup),
            .init(service: UntilShutdown(), successTerminationBehavior: .gracefullyShutdownGroup),
          ], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
      try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        let port = await console.door.boundPort()
        if port != 0 { try await announce(stack: stack, users: users, console: console, consolePort: port) }
        try await tasks.waitForAll()
      }
    }
  }

  private func announce(
    stack: LocalStack, users: [(user: String, answer: Tollgate_V1_IsSubscriberResponse, storeId: String)],
    console: DemoConsole, consolePort: Int
  ) async throws {
    let bin = CommandLine.arguments.first ?? "tollgate"
    let simulator = stack.sim.baseURL
    let service = "127.0.0.1:\(stack.server.port)"
    var lines = [
      "",
      "Tollgate demo: service \(service), store simulator \(simulator), worker 127.0.0.1:\(await stack.workerPort)",
      "worker health and metrics: http://127.0.0.1:\(await stack.workerAdminPort)/health, /metrics",
      "database \(stack.databasePath)", "",
      "Support console: http://127.0.0.1:\(consolePort)/console",
      "  sign in with the admin key \(console.key) (also in \(console.keyFile))", "",
      "Demo users (bought through the simulator, verified by the worker; a store id to search the console by):",
    ]
    for (user, answer, storeId) in users {
      let state = QueryOutput.name(answer.state)
      let premium = "premium: \(answer.active ? "yes" : "no ") (\(state))"
      lines.append(
        "  \(user.padding(toLength: 22, withPad: " ", startingAt: 0)) \(premium.padding(toLength: 33, withPad: " ", startingAt: 0)) \(storeId)"
      )
    }
    lines += [
      "", "Ask it:",
      "  \(bin) query is-subscriber demo-active premium --server \(service)",
      "  \(bin) query subscription demo-grace --server \(service) --json",
      "Explain or grant, on the store's clock as the worker and the service follow it:",
      "  \(bin) explain demo-refunded premium --database \(stack.databasePath) --follow-clock \(simulator)",
      "  \(bin) explain demo-google-upgraded premium --database \(stack.databasePath) --follow-clock \(simulator)",
      "  \(bin) grant demo-vip premium --until 30d --note 'support' --database \(stack.databasePath) --follow-clock \(simulator)",
      "Move the store's clock (demo-active, demo-google-active and demo-amazon-active renew, the trials convert,",
      "demo-grace lapses into billing retry, demo-google-grace into account hold, demo-google-paused resumes):",
      "  \(bin) storesim advance 31d --sim \(simulator.replacingOccurrences(of: "http://", with: ""))",
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
