import ArgumentParser
import Foundation
import NIOSSL
import SwiftProtobuf
import TollgateClient

/// Where an admin command runs when it is given `--server`: on a running service, over the fast
/// port, as a caller with the `admin` scope (issue 28). Without `--server` it runs on the database
/// here (`AdminOptions`: `--database`, `--config`).
struct AdminRemoteOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "Run on a running service instead of the database: HOST:PORT, or unix:/path for its Unix domain socket.",
      discussion:
        "Repeat it to name replicas: the call goes to one of them. A read (explain, lookup, timeline) goes to another when that one cannot be reached or serves no admin calls; a write (grant, revoke, reverify, erase-user) only when its connection could not be made."
    ))
  var server: [String] = []

  @Option(
    help: "With --server: authenticate as this caller (it needs the admin scope); its key comes from TOLLGATE_KEY.")
  var caller: String?

  @Option(help: "With --server: speak TLS, trusting the CA certificates in this PEM file.")
  var tlsCA: String?

  @Option(help: "With --server: timeout in milliseconds.")
  var timeoutMs: Int64 = 10_000

  var isRemote: Bool { !server.isEmpty }

  /// Refuses the options of the other place: `--database`/`--config`/`--follow-clock` with
  /// `--server`, `--caller`/`--tls-ca` without it.
  func check(against local: AdminOptions) throws {
    if isRemote {
      if local.database != nil || local.config != nil || local.followClock != nil {
        throw ValidationError(
          "--server runs the command on a service: leave out --database, --config and --follow-clock")
      }
    } else if caller != nil || tlsCA != nil {
      throw ValidationError("--caller and --tls-ca need --server")
    }
  }

  func client() throws -> TollgateClient {
    try Query.Connection.makeClient(servers: server, caller: caller, tlsCA: tlsCA, timeoutMs: timeoutMs)
  }
}

extension Query.Connection {
  /// A client of `servers` (`HOST:PORT` or `unix:/path`; none: 127.0.0.1:7701), authenticating as
  /// `caller` with the key in TOLLGATE_KEY, over TLS trusting `tlsCA` when given.
  static func makeClient(servers: [String], caller: String?, tlsCA: String?, timeoutMs: Int64) throws
    -> TollgateClient
  {
    var config = TollgateClient.Config.defaults
    config.callTimeout = .milliseconds(timeoutMs)
    // With replicas, a server that does not answer at all must leave time to ask another.
    config.connectTimeout = .milliseconds(max(1, timeoutMs / Int64(max(1, servers.count))))
    if let caller {
      // Never on the command line, where `ps` shows it to everyone.
      guard let key = ProcessInfo.processInfo.environment["TOLLGATE_KEY"], !key.isEmpty else {
        throw ValidationError("--caller needs the caller's key in the TOLLGATE_KEY environment variable")
      }
      config.credentials = .init(caller: caller, key: key)
    }
    if let tlsCA {
      var tls = TLSConfiguration.makeClientConfiguration()
      tls.trustRoots = .file(tlsCA)
      config.tls = tls
    }
    let endpoints = try (servers.isEmpty ? ["127.0.0.1:7701"] : servers).map { server in
      if server.hasPrefix("unix:") {
        return TollgateClient.Endpoint.unixSocket(path: String(server.dropFirst("unix:".count)))
      } else if let address = HostPort(argument: server) {
        return TollgateClient.Endpoint.tcp(host: address.host, port: address.port)
      }
      throw ValidationError("--server must be HOST:PORT or unix:/path")
    }
    return try TollgateClient(endpoints: endpoints, config: config)
  }
}

/// How the admin commands print a service's answers and errors.
enum AdminOutput {
  /// Runs a call on a service; a client error becomes one line on stderr and exit status 2, or
  /// `notFoundStatus` for NOT_FOUND when given (revoke with nothing to revoke exits 1, as locally).
  static func perform<T>(_ command: String, notFoundStatus: Int32? = nil, _ call: () async throws -> T) async throws
    -> T
  {
    do {
      return try await call()
    } catch let error as TollgateClientError {
      FileHandle.standardError.write(Data("tollgate \(command): \(error)\n".utf8))
      if error.code == .notFound, let notFoundStatus { throw ExitCode(notFoundStatus) }
      throw ExitCode(2)
    }
  }

  /// The proto3 JSON mapping of `message` (as the HTTP door answers it), indented, keys sorted.
  static func json(_ message: some SwiftProtobuf.Message) throws -> String {
    let compact = try message.jsonUTF8Data()
    let object = try JSONSerialization.jsonObject(with: compact)
    let pretty = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
    return String(decoding: pretty, as: UTF8.self)
  }

  /// A time field of an admin message for a person: "-" when empty.
  static func time(_ text: String) -> String { text.isEmpty ? "-" : text }

  static func entitlements(_ statuses: [Tollgate_V1_EntitlementStatus]) -> [String] {
    statuses.map { status in
      "  \(status.entitlement): \(status.active ? "ACTIVE" : "inactive"), \(QueryOutput.name(status.state)) until \(QueryOutput.time(status.expiresAtMs)) via \(QueryOutput.name(status.store)) \(status.productID)"
    }
  }
}
