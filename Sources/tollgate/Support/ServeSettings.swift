import Foundation
import TollgateCallers
import TollgateHTTPListener
import TollgateServer
import TollgateService
import TollgateWorker

/// The `service` section of the config file (JSON). Flags given on the command line win.
///
/// ```json
/// { "service": { "listen": "127.0.0.1:7701", "database": "tollgate.sqlite",
///                "unixSocket": "/run/tollgate/tollgate.sock",
///                "callers": [{ "name": "web", "keySha256": "…", "scopes": ["read"] }],
///                "maxMessageBytes": 1048576, "maxPendingPerConnection": 64,
///                "feedPollMs": 2, "maxSubmitWaitMs": 10000, "eventLoopThreads": 2 } }
/// ```
/// docs/configuration.md lists every key with its default.
struct ServeSettings: Decodable, Sendable {
  var listen: String?
  var database: String?
  var maxMessageBytes: Int?
  var maxPendingPerConnection: Int?
  var feedPollMs: Int?
  var maxSubmitWaitMs: UInt32?
  var eventLoopThreads: Int?
  /// A Unix domain socket to listen on as well (`unix:` listeners are local: no protected mode).
  var unixSocket: String?
  /// The callers allowed in (only their keys' SHA-256), or a file holding the same array,
  /// reloaded when it changes. Without either, every connection may call everything, and `serve`
  /// refuses a non-loopback listener unless given `--insecure-no-auth`.
  var callers: [CallerList.Entry]?
  /// A TLS listener (`listen`, `certificateFile`, `privateKeyFile`, and `clientCAFile` for mutual TLS).
  var tls: TLSSettings?
  var callersFile: String?
  /// The HTTP/JSON and gRPC doors beside the fast port (ServeSettings+Doors.swift); each listens
  /// only when its `listen` is set.
  var http: HTTPDoorSettings?
  var grpc: GRPCDoorSettings?
  /// The admin listener (`/metrics`, `/livez`, `/readyz`, `/health`), HOST:PORT; none unless set.
  var adminListen: String?
  var maxConnections: Int?
  var idleTimeoutMs: Int?
  var readTimeoutMs: Int?
  var maxBufferedBytes: Int?
  /// Deadlines for progress and slots kept for callers (issue 25 item 2), and the payload an
  /// unauthenticated connection may announce (item 3).
  var tlsHandshakeTimeoutMs: Int?
  var writeTimeoutMs: Int?
  var unauthenticatedTimeoutMs: Int?
  var reservedConnections: Int?
  var maxUnauthenticatedMessageBytes: Int?
  var submitsPerSecondPerCaller: Int?
  var submitBurstPerCaller: Int?
  var maxPendingSubmissionsPerUser: Int?
  /// Signed submissions (issue 25): counted per caller and user apart from the unsigned ones.
  var maxPendingSignedSubmissionsPerUser: Int?
  var submitBytesPerMinutePerCaller: Int?
  var maxFailedAuthentications: Int?
  var failedAuthenticationsPerMinutePerSource: Int?
  var failedAuthenticationBurstPerSource: Int?
  var authenticationSourcesTracked: Int?

  /// How many event-loop threads `--threads` and `service.eventLoopThreads` may ask for.
  static let eventLoopThreadRange = 1...256

  private struct File: Decodable {
    var service: ServeSettings?
  }

  /// The `service` section of the file at `path` (defaults when it has none), and every key of it
  /// that nothing reads (a misspelt key is an error naming it, never a setting silently left at
  /// its default). Throws when the section cannot be read: every problem at once, a value of the
  /// wrong type and the unknown keys. `checked(path:)` checks the values too.
  static func load(path: String) throws(ConfigProblems) -> (settings: ServeSettings, keyProblems: [String]) {
    let data = try ConfigFile.data(path)
    let keys: ConfigKeys
    do throws(WorkerConfigurationError) {
      keys = try ConfigKeys(json: data)
    } catch {
      throw ConfigProblems(path: path, problems: error.problems)
    }
    keys.read(ServeSettings.self, section: "service")
    let settings: ServeSettings
    do {
      settings = try JSONDecoder().decode(File.self, from: data).service ?? ServeSettings()
    } catch let error as DecodingError {
      throw ConfigProblems(path: path, problems: [error.readablePath] + keys.problems)
    } catch {
      throw ConfigProblems(path: path, problems: ["\(error)"] + keys.problems)
    }
    return (settings, keys.problems)
  }

  init() {}

  /// Every problem of the `service` section's values, each naming its key; `checked(path:)`
  /// reports them with the rest.
  func problems() -> [String] {
    var problems: [String] = []
    if let value = maxMessageBytes, !(1...(64 << 20)).contains(value) {
      problems.append("service.maxMessageBytes must be between 1 and 67108864")
    }
    if let value = maxPendingPerConnection, value < 1 {
      problems.append("service.maxPendingPerConnection must be at least 1")
    }
    if let value = eventLoopThreads, !Self.eventLoopThreadRange.contains(value) {
      let range = Self.eventLoopThreadRange
      problems.append(
        "service.eventLoopThreads must be between \(range.lowerBound) and \(range.upperBound)")
    }
    if let value = feedPollMs, !(1...10_000).contains(value) {
      problems.append("service.feedPollMs must be between 1 and 10000")
    }
    if let listen, RPCListenAddress(listen) == nil {
      problems.append("service.listen must be HOST:PORT (port 0 to 65535) or unix:/path")
    }
    if let unixSocket, !unixSocket.hasPrefix("/") || unixSocket.utf8.count >= 108 {
      problems.append("service.unixSocket must be an absolute path under 108 bytes")
    }
    if let tls, RPCListenAddress(tls.listen).map({ if case .tcp = $0 { true } else { false } }) != true {
      problems.append("service.tls.listen must be HOST:PORT (port 0 to 65535)")
    }
    if let adminListen, let problem = ListenAddress.problem(adminListen, key: "service.adminListen") {
      problems.append(problem)
    }
    if callers != nil, callersFile != nil {
      problems.append("service.callers and service.callersFile: configure one of them")
    }
    let ranges: [(String, Int?, ClosedRange<Int>)] = [
      ("maxConnections", maxConnections, 1...1_000_000),
      ("idleTimeoutMs", idleTimeoutMs, 1_000...86_400_000),
      ("readTimeoutMs", readTimeoutMs, 100...3_600_000),
      ("maxBufferedBytes", maxBufferedBytes, 1 << 20...1 << 40),
      ("tlsHandshakeTimeoutMs", tlsHandshakeTimeoutMs, 100...600_000),
      ("writeTimeoutMs", writeTimeoutMs, 100...3_600_000),
      ("unauthenticatedTimeoutMs", unauthenticatedTimeoutMs, 100...3_600_000),
      (
        "reservedConnections", reservedConnections,
        0...max(1, maxConnections ?? RPCServer.Config.defaults.maximumConnections) - 1
      ),
      // Authenticate carries a caller name and a key: a few hundred bytes.
      ("maxUnauthenticatedMessageBytes", maxUnauthenticatedMessageBytes, 256...max(256, maxMessageBytes ?? 1 << 20)),
      ("submitsPerSecondPerCaller", submitsPerSecondPerCaller, 1...1_000_000),
      ("submitBurstPerCaller", submitBurstPerCaller, 1...1_000_000),
      ("maxPendingSubmissionsPerUser", maxPendingSubmissionsPerUser, 1...1_000_000),
      ("maxPendingSignedSubmissionsPerUser", maxPendingSignedSubmissionsPerUser, 1...1_000_000),
      // At least the largest submission (an app receipt of 256 KiB with its ids).
      ("submitBytesPerMinutePerCaller", submitBytesPerMinutePerCaller, 1 << 20...1 << 40),
      ("maxFailedAuthentications", maxFailedAuthentications, 1...100),
      ("failedAuthenticationsPerMinutePerSource", failedAuthenticationsPerMinutePerSource, 1...1_000_000),
      ("failedAuthenticationBurstPerSource", failedAuthenticationBurstPerSource, 1...1_000_000),
      ("authenticationSourcesTracked", authenticationSourcesTracked, 16...10_000_000),
    ]
    for (key, value, range) in ranges {
      if let value, !range.contains(value) {
        problems.append(
          "service.\(key) must be between \(range.lowerBound) and \(range.upperBound)")
      }
    }
    return problems
  }

  /// The limits and access of the RPC server and the responder, from these settings.
  func apply(to rpc: inout RPCServer.Config, responder: inout EntitlementsResponder.Config) {
    if let value = maxMessageBytes { rpc.maximumPayloadLength = value }
    if let value = maxPendingPerConnection { rpc.maximumPendingPerConnection = value }
    if let value = maxConnections { rpc.maximumConnections = value }
    if let value = idleTimeoutMs { rpc.idleTimeout = .milliseconds(value) }
    if let value = readTimeoutMs { rpc.readTimeout = .milliseconds(value) }
    if let value = maxBufferedBytes { rpc.maximumBufferedBytes = value }
    if let value = tlsHandshakeTimeoutMs { rpc.handshakeTimeout = .milliseconds(value) }
    if let value = writeTimeoutMs { rpc.writeTimeout = .milliseconds(value) }
    if let value = unauthenticatedTimeoutMs { rpc.unauthenticatedTimeout = .milliseconds(value) }
    if let value = reservedConnections { rpc.reservedConnections = value }
    if let value = maxUnauthenticatedMessageBytes { rpc.maximumUnauthenticatedPayloadLength = value }
    if let value = submitsPerSecondPerCaller { rpc.submitsPerSecondPerCaller = value }
    if let value = submitBurstPerCaller { rpc.submitBurstPerCaller = value }
    if let value = maxFailedAuthentications { rpc.maximumFailedAuthentications = value }
    if let value = failedAuthenticationsPerMinutePerSource { rpc.failedAuthenticationsPerMinutePerSource = value }
    if let value = failedAuthenticationBurstPerSource { rpc.failedAuthenticationBurstPerSource = value }
    if let value = authenticationSourcesTracked { rpc.authenticationSourcesTracked = value }
    if let value = maxSubmitWaitMs { responder.maximumSubmitWaitMs = value }
    if let value = maxPendingSubmissionsPerUser { responder.maximumPendingPerCallerAndUser = value }
    if let value = maxPendingSignedSubmissionsPerUser { responder.maximumPendingSignedPerCallerAndUser = value }
    if let value = submitBytesPerMinutePerCaller { responder.submitBytesPerMinutePerCaller = value }
  }
}

/// `service.tls`: a TLS listener beside the plaintext one.
struct TLSSettings: Decodable, Sendable {
  var listen: String
  var certificateFile: String
  var privateKeyFile: String
  /// Clients must present a certificate chaining to these CAs (mutual TLS).
  var clientCAFile: String?
}
