import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import TollgateIndex
import TollgateServer
import TollgateService
import TollgateStorage

struct Serve: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Run the entitlement service (protobuf-c-rpc over TCP).")

  @Option(help: "Address to listen on, HOST:PORT.")
  var listen: HostPort?

  @Option(help: "SQLite database file; it must exist (the worker creates it) unless --create.")
  var database: String?

  @Flag(help: "Create the database if it is missing (otherwise a missing file is an error).")
  var create = false

  @Option(help: "JSON config file; its \"service\" section sets what the flags do not.")
  var config: String?

  @Option(help: "Follow a store simulator's virtual clock at this URL (demos and tests only, never production).")
  var followClock: String?

  @Option(help: "Event-loop threads answering RPCs (default: one per core).")
  var threads: Int?

  @OptionGroup var logging: LoggingOptions

  func validate() throws {
    let range = ServeSettings.eventLoopThreadRange
    if let threads, !range.contains(threads) {
      throw ValidationError("--threads must be between \(range.lowerBound) and \(range.upperBound)")
    }
  }

  func run() async throws {
    let settings = try config.map(ServeSettings.load(path:)) ?? ServeSettings()
    try settings.validate()
    guard
      let listen = listen ?? settings.listen.flatMap(HostPort.init(argument:)) ?? HostPort(argument: "127.0.0.1:7701")
    else { throw ValidationError("service.listen must be HOST:PORT") }
    guard let database = database ?? settings.database else {
      throw ValidationError("--database PATH is required (or \"service.database\" in --config)")
    }

    let logger = logging.makeLogger(label: "tollgate.serve")
    var rpc = RPCServer.Config.defaults
    if let value = settings.maxMessageBytes { rpc.maximumPayloadLength = value }
    if let value = settings.maxPendingPerConnection { rpc.maximumPendingPerConnection = value }
    var feed = ChangeFeedFollower.Config.defaults
    if let value = settings.feedPollMs { feed.pollInterval = .milliseconds(value) }
    var responder = EntitlementsResponder.Config.defaults
    if let value = settings.maxSubmitWaitMs { responder.maximumSubmitWaitMs = value }

    let clock = try await ProcessClock.make(followURL: followClock, logger: logger)
    let storage = try SQLiteEntitlementStorage(path: database, nowMs: clock.nowMs(), create: create)
    let server = try await EntitlementServer.start(
      config: .init(host: listen.host, port: listen.port, rpc: rpc, feed: feed, responder: responder),
      storage: storage, nowMs: clock.nowMs, threads: threads ?? settings.eventLoopThreads,
      logger: logger)
    // Written unbuffered: scripts and tests wait for this line to learn the port.
    FileHandle.standardOutput.write(
      Data(
        "tollgate serve: listening on \(HostPort(host: listen.host, port: server.port)), database \(database)\n".utf8))
    let group = ServiceGroup(
      configuration: .init(
        services: [.init(service: server)] + clock.services, gracefulShutdownSignals: [.sigterm, .sigint],
        logger: logger))
    try await group.run()
  }
}
