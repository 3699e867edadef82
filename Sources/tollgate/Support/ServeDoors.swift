import ArgumentParser
import Logging
import ServiceLifecycle
import TollgateCallers
import TollgateGRPC
import TollgateHTTPAPI
import TollgateHTTPListener
import TollgateServeMetrics
import TollgateServer

/// The doors `serve` opens beside the fast port (issue 28): the HTTP/JSON door
/// (`service.http.listen`, `--http-listen`) and the gRPC door (`service.grpc.listen`,
/// `--grpc-listen`). Every door answers through the fast port's own handler
/// (`EntitlementServer.responder`) and checks callers with serve's one `CallerGate`, so one set of
/// keys, one failed-authentication budget per source and one submission rate per caller hold for
/// all of them.
///
/// The doors run in a service group of their own that is only ever shut down gracefully, also
/// when one of them fails: cancelling a Hummingbird (or grpc-swift) listener drops connections it
/// accepted but had not handed to a handler, whose `NIOAsyncWriter`s trap in their deinit
/// (docs/architecture.md). Serve's group lists it after the fast port's server, so on SIGTERM
/// the doors stop (and drain) first.
///
/// Adding a door: a `Door` built in `make(…)` (the gRPC door goes before the HTTP one, so the
/// listening line reads `A and grpc:B and http:C`), and its address in `Addresses`.
struct ServeDoors: Service {
  /// One listening door.
  struct Door: Sendable {
    /// The listening line's prefix: `http`, `grpc`.
    var name: String
    var address: ListenAddress
    var service: any Service
    /// The port it listens on once it does, waiting until then; 0 when it could not or its
    /// `run()` ended first (so the announcement never waits on a door that is gone).
    var boundPort: @Sendable () async throws -> Int
    /// What it recorded and holds open, for serve's metrics (`ServeMetrics`); nil: not a door
    /// callers call (the admin listener).
    var metrics: ServeMetrics.Door? = nil
  }

  /// Where each door listens; nil: that door is off.
  struct Addresses: Sendable {
    var http: ListenAddress?
    var grpc: ListenAddress?

    /// The flags win over the config file; each is checked as a config address.
    init(settings: ServeSettings, httpListen: String?, grpcListen: String?) throws {
      http = try Self.parse(
        httpListen, flag: "--http-listen", setting: settings.http?.listen, key: "service.http.listen")
      grpc = try Self.parse(
        grpcListen, flag: "--grpc-listen", setting: settings.grpc?.listen, key: "service.grpc.listen")
    }

    private static func parse(_ flag: String?, flag name: String, setting: String?, key: String) throws
      -> ListenAddress?
    {
      if let flag {
        guard let address = ListenAddress(flag) else {
          throw ValidationError("\(name) must be HOST:PORT (port 0 to 65535; an IPv6 host in brackets)")
        }
        return address
      }
      guard let setting else { return nil }
      do {
        return try ListenAddress.parse(setting, key: key)
      } catch {
        throw ValidationError("config: \(error)")
      }
    }

    /// `(key, address)` of every door that is on, in the listening line's order.
    var all: [(key: String, address: ListenAddress)] {
      [grpc.map { ("service.grpc.listen", $0) }, http.map { ("service.http.listen", $0) }].compactMap { $0 }
    }
  }

  let doors: [Door]
  let logger: Logger

  var isEmpty: Bool { doors.isEmpty }

  /// Protected mode, as for the fast port's listeners: a door beyond loopback on a server without
  /// callers would let anyone who reaches it read every user and submit purchases as any user.
  static func refuseExposed(_ addresses: Addresses, access: CallerAccess, insecureNoAuth: Bool) throws {
    guard case .open = access, !insecureNoAuth,
      let exposed = addresses.all.first(where: { !Self.isLoopback($0.address) })
    else { return }
    throw ValidationError(
      """
      refusing to listen on \(exposed.address) (\(exposed.key)) without callers: anyone who reaches it could \
      read every user's subscriptions and submit purchases as any user. Configure service.callers or \
      service.callersFile (tollgate callers new NAME --scopes read), listen on loopback, or pass --insecure-no-auth.
      """)
  }

  /// The fast port's loopback rule (`RPCListenAddress.isLocal`), one for every listener.
  static func isLoopback(_ address: ListenAddress) -> Bool {
    RPCListenAddress.tcp(host: address.host, port: address.port).isLocal
  }

  /// The doors `addresses` turns on, answering through `handler` (the fast port's) and `gate`;
  /// the HTTP door also answers `mounts` (the support console).
  /// `maximumMessageBytes` is the fast port's `service.maxMessageBytes`: a purchase is as large
  /// on every door.
  static func make(
    addresses: Addresses, settings: ServeSettings, handler: any EntitlementsHandler, gate: CallerGate,
    maximumMessageBytes: Int, mounts: [DoorMount] = [], logger: Logger
  ) throws -> ServeDoors {
    var doors: [Door] = []
    if let address = addresses.grpc {
      let config = (settings.grpc ?? GRPCDoorSettings()).config(
        address: address, maximumPayloadLength: maximumMessageBytes)
      let calls = DoorCallRecorder(door: .grpc)
      let door = try GRPCDoor(config: config, handler: handler, gate: gate, logger: logger, calls: calls)
      doors.append(
        Door(
          name: "grpc", address: address, service: door, boundPort: { try await door.listeningAddress().port },
          metrics: ServeMetrics.Door(
            recorder: calls, openConnections: { door.openConnections },
            refusedConnections: { door.refusedConnections })))
    }
    if let address = addresses.http {
      var config = (settings.http ?? HTTPDoorSettings()).config(
        address: address, maximumPurchaseBodyBytes: maximumMessageBytes)
      // The support console (ServeConsole), outside the door's bearer-key check.
      config.mounts = mounts
      let calls = DoorCallRecorder(door: .http)
      let door = try HTTPDoor(
        config: config, handler: handler, gate: gate, logger: logger,
        countCut: { _, reason in calls.refusedConnection(reason: reason) }, calls: calls)
      doors.append(
        Door(
          name: "http", address: address, service: door, boundPort: { await door.boundPort() },
          metrics: ServeMetrics.Door(recorder: calls, openConnections: { door.openConnections })))
    }
    return ServeDoors(doors: doors, logger: logger)
  }

  /// Runs every door until graceful shutdown; a door that fails (it cannot listen) shuts the
  /// others down gracefully and its error ends `serve`.
  func run() async throws {
    guard !doors.isEmpty else { return }
    let services = doors.map {
      ServiceGroupConfiguration.ServiceConfiguration(
        service: $0.service, successTerminationBehavior: .gracefullyShutdownGroup,
        failureTerminationBehavior: .gracefullyShutdownGroup)
    }
    try await ServiceGroup(configuration: .init(services: services, logger: logger)).run()
  }

  /// `grpc:HOST:PORT`, `http:HOST:PORT` with the ports they bound, once all are bound; nil when
  /// one could not listen (its error stops serve).
  func boundAddresses() async throws -> [String]? {
    var addresses: [String] = []
    for door in doors {
      let port = try await door.boundPort()
      guard port != 0 else { return nil }
      addresses.append("\(door.name):\(ListenAddress(host: door.address.host, port: port))")
    }
    return addresses
  }
}
