import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import TollgateCallers
import TollgateIndex
import TollgateServer
import TollgateService
import TollgateStorageFactory

struct Serve: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Run the entitlement service (protobuf-c-rpc over TCP).")

  @Option(help: "Address to listen on: HOST:PORT, or unix:/path for a Unix domain socket.")
  var listen: String?

  @Option(help: "A Unix domain socket to listen on as well (protobuf-c-rpc's local transport).")
  var unixSocket: String?

  @Option(help: "Serve the HTTP/JSON API on HOST:PORT as well (service.http.listen; docs/http-api.md).")
  var httpListen: String?

  @Option(help: "Serve gRPC on HOST:PORT as well (service.grpc.listen; docs/grpc.md).")
  var grpcListen: String?

  @Option(
    help: "Serve /metrics, /livez, /readyz and /health on HOST:PORT (service.adminListen; none by default).")
  var adminListen: String?

  @Flag(
    help: ArgumentHelp(
      "Listen beyond loopback without callers configured: anyone who reaches the port may read and submit.",
      discussion: "Without it, serve refuses a non-loopback listener unless service.callers or callersFile is set."))
  var insecureNoAuth = false

  @Flag(help: "Serve no support and admin calls (LookUp … EraseUser): every door answers them UNAVAILABLE.")
  var noAdmin = false

  @Flag(help: "Serve no support console (/console) on the HTTP door (docs/console.md).")
  var noConsole = false

  @Option(
    help: ArgumentHelp(
      "The database: an SQLite file path (or sqlite:PATH), or postgres://USER@HOST:PORT/DATABASE?sslmode=MODE; it must exist (the worker creates it) unless --create.",
      discussion:
        "PostgreSQL's password comes from TOLLGATE_DATABASE_PASSWORD, a file named by TOLLGATE_DATABASE_PASSWORD_FILE, or PGPASSWORD; never the URL."
    ))
  var database: String?

  @Flag(help: "Create the database if it is missing (otherwise a missing database is an error).")
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
    // Every problem of the `service` section at once (`ConfigProblems`: exit 78).
    let settings = try config.map(ServeSettings.checked(path:)) ?? ServeSettings()
    let doorAddresses = try ServeDoors.Addresses(settings: settings, httpListen: httpListen, grpcListen: grpcListen)
    let adminAddress = try ServeAdminListen.address(flag: adminListen, settings: settings)
    guard let listen = RPCListenAddress(listen ?? settings.listen ?? "127.0.0.1:7701") else {
      throw ValidationError("--listen must be HOST:PORT (port 0 to 65535) or unix:/path")
    }
    var listeners = [listen]
    if let path = unixSocket ?? settings.unixSocket {
      guard let socket = RPCListenAddress("unix:" + path) else {
        throw ValidationError("--unix-socket must be a path under 108 bytes")
      }
      listeners.append(socket)
    }
    var rpcListeners = listeners.map { RPCListener($0) }
    if let tls = settings.tls, let address = RPCListenAddress(tls.listen) {
      do throws(TLSSetupError) {
        let context = try TLSServerContext(
          certificateFile: tls.certificateFile, privateKeyFile: tls.privateKeyFile, clientCAFile: tls.clientCAFile)
        rpcListeners.append(RPCListener(address, tls: context))
      } catch {
        throw ConfigProblems(path: config, problem: "service.tls: \(error)")
      }
    }
    let access = try Self.access(settings: settings)
    // Mutual TLS authenticates clients by itself; every other listener beyond this machine needs callers.
    let exposed = rpcListeners.first { !$0.address.isLocal && $0.tls?.requiresClientCertificates != true }
    if case .open = access, !insecureNoAuth, let exposed = exposed?.address {
      throw ValidationError(
        """
        refusing to listen on \(exposed) without callers: anyone who reaches it could read every user's \
        subscriptions and submit purchases as any user. Configure service.callers or service.callersFile \
        (tollgate callers new NAME --scopes read), listen on loopback or a Unix socket, or pass \
        --insecure-no-auth.
        """)
    }
    try ServeDoors.refuseExposed(doorAddresses, access: access, insecureNoAuth: insecureNoAuth)
    guard let database = database ?? settings.database else {
      throw ValidationError("--database DB is required (or \"service.database\" in --config)")
    }
    let location = try StorageLocation(database)

    let logger = logging.makeLogger(label: "tollgate.serve")
    var rpc = RPCServer.Config.defaults
    var responder = EntitlementsResponder.Config.defaults
    settings.apply(to: &rpc, responder: &responder)
    rpc.access = access
    // One gate (callers, failed authentications per source, submissions per caller) for every door.
    let gate = rpc.makeGate()
    rpc.gate = gate
    var feed = ChangeFeedFollower.Config.defaults
    if let value = settings.feedPollMs { feed.pollInterval = .milliseconds(value) }

    let clock = try await ProcessClock.make(followURL: followClock, logger: logger)
    // A database server that is down now (PostgreSQL) is waited for: serve listens and answers
    // UNAVAILABLE until it loads. One that refuses this process (password, database) is an error.
    let storage = try await location.entitlementStorage(
      nowMs: clock.nowMs(), create: create, waitForServer: location.isServer,
      environment: ProcessInfo.processInfo.environment, logger: logger)
    // SQLite's file modes; nothing on PostgreSQL.
    FileExposure.warn(database: location, logger: logger)
    try await StorageLifetime.using(storage) { storage in
      var serverConfig = EntitlementServer.Config(listeners: rpcListeners, rpc: rpc, feed: feed, responder: responder)
      // This run's row in feed_readers: which host and process, for operators reading it.
      serverConfig.feedReader.readerId = FeedPositionRecorder.readerId(
        host: ProcessInfo.processInfo.hostName, processId: ProcessInfo.processInfo.processIdentifier)
      // The support and admin calls, over the worker's storage on this database (ServeAdmin).
      let admin =
        noAdmin
        ? nil
        : try await ServeAdmin.open(
          location: location, config: config, clock: clock, environment: ProcessInfo.processInfo.environment,
          logger: logger)
      serverConfig.admin = admin
      let server = try await EntitlementServer.start(
        config: serverConfig, storage: storage, nowMs: clock.nowMs, threads: threads ?? settings.eventLoopThreads,
        waitForStorage: location.isServer, logger: logger)
      // The HTTP and gRPC doors answer through the fast port's handler, with the same gate.
      var doors = try ServeDoors.make(
        addresses: doorAddresses, settings: settings, handler: server.responder, gate: gate,
        maximumMessageBytes: rpc.maximumPayloadLength,
        mounts: ServeConsole.mounts(gate: gate, server: server, admin: admin, enabled: !noConsole, logger: logger),
        logger: logger)
      if let adminAddress {
        doors = ServeAdminListen.adding(to: doors, address: adminAddress, server: server, nowMs: clock.nowMs)
      }
      // Scripts and tests wait for the listening line to learn the ports (`ListeningAnnouncement`).
      let addresses = server.rpcServer.listeners.map { $0.isTLS ? "tls:\($0.address)" : "\($0.address)" }
      if doors.isEmpty { ListeningAnnouncement.write(listeners: addresses, database: "\(location)") }
      // Shut down gracefully only, also when the server fails: the doors' listeners must never be
      // cancelled (ServeDoors).
      let ending: ServiceGroupConfiguration.ServiceConfiguration.TerminationBehavior =
        doors.isEmpty ? .cancelGroup : .gracefullyShutdownGroup
      var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
        .init(service: server, successTerminationBehavior: ending, failureTerminationBehavior: ending)
      ]
      services += clock.services
      // First, so it closes the admin side's storage only after the server drained (reverse order).
      if let admin {
        services.insert(
          .init(
            service: admin, successTerminationBehavior: .gracefullyShutdownGroup,
            failureTerminationBehavior: .gracefullyShutdownGroup), at: 0)
      }
      if case .callers(let registry) = gate.access, let path = settings.callersFile {
        services.append(.init(service: CallersFileWatcher(path: path, registry: registry, logger: logger)))
      }
      // Last, so that on SIGTERM they stop (and drain) before the fast port's server.
      if !doors.isEmpty {
        services.append(
          .init(
            service: doors, successTerminationBehavior: .gracefullyShutdownGroup,
            failureTerminationBehavior: .gracefullyShutdownGroup))
        services.append(
          .init(
            service: ListeningAnnouncement(listeners: addresses, doors: doors, database: "\(location)"),
            successTerminationBehavior: .ignore))
      }
      let group = ServiceGroup(
        configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
      try await group.run()
    }
  }

  /// Configured callers (inline or from their file), or open access when there are none.
  static func access(settings: ServeSettings) throws -> CallerAccess {
    do throws(CallerList.Problem) {
      if let path = settings.callersFile {
        return .callers(CallerRegistry(try CallersFileWatcher.load(path: path)))
      }
      if let entries = settings.callers {
        return .callers(CallerRegistry(try CallerList.keys(entries, source: "service.callers")))
      }
      return .open
    } catch {
      throw ValidationError("config: \(error)")
    }
  }
}
