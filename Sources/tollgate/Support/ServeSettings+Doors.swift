import TollgateHTTPAPI
import TollgateHTTPListener

/// `service.http`: the HTTP/JSON door (docs/http-api.md). It listens only when `listen` (or
/// `--http-listen`) is given.
///
/// ```json
/// { "service": { "http": { "listen": "127.0.0.1:7706", "maxConnections": 1000, "idleTimeoutMs": 60000,
///                          "headerTimeoutMs": 10000, "requestTimeoutMs": 30000,
///                          "minBodyBytesPerSecond": 1024, "bodyRateGraceMs": 5000,
///                          "maxAdminBodyBytes": 65536,
///                          "tls": { "certificateFile": "server.pem", "privateKeyFile": "server.key" } } } }
/// ```
/// `POST /v1/purchases` takes at most `service.maxMessageBytes`, as the fast port. With `tls`
/// (`DoorTLS`, as `service.grpc.tls`) the listener speaks HTTPS only; with its `clientCAFile`, mutual TLS.
struct HTTPDoorSettings: Decodable, Sendable {
  var listen: String?
  var maxConnections: Int?
  var idleTimeoutMs: Int?
  var headerTimeoutMs: Int?
  var requestTimeoutMs: Int?
  var minBodyBytesPerSecond: Int?
  var bodyRateGraceMs: Int?
  var maxAdminBodyBytes: Int?
  var unprovenTimeoutMs: Int?
  var tls: DoorTLS?

  func problems() -> [String] {
    var problems: [String] = []
    if let listen, let problem = ListenAddress.problem(listen, key: "service.http.listen") {
      problems.append(problem)
    }
    if let problem = tls?.problem(key: "service.http.tls") { problems.append(problem) }
    problems += DoorRanges.problems(
      "service.http",
      [
        ("maxConnections", maxConnections, 1...1_000_000),
        ("idleTimeoutMs", idleTimeoutMs, 1_000...86_400_000),
        ("headerTimeoutMs", headerTimeoutMs, 100...600_000),
        ("requestTimeoutMs", requestTimeoutMs, 100...3_600_000),
        ("minBodyBytesPerSecond", minBodyBytesPerSecond, 0...1 << 30),
        ("bodyRateGraceMs", bodyRateGraceMs, 0...600_000),
        ("maxAdminBodyBytes", maxAdminBodyBytes, 1_024...(16 << 20)),
        ("unprovenTimeoutMs", unprovenTimeoutMs, 100...3_600_000),
      ])
    if let header = headerTimeoutMs, let request = requestTimeoutMs, header > request {
      problems.append("service.http.headerTimeoutMs must not be above requestTimeoutMs")
    }
    return problems
  }

  /// The door's configuration on `address`, with the purchase body limit the fast port's.
  func config(address: ListenAddress, maximumPurchaseBodyBytes: Int) -> HTTPDoor.Config {
    var config = HTTPDoor.Config(address: address)
    config.maximumPurchaseBodyBytes = maximumPurchaseBodyBytes
    if let value = maxConnections { config.maximumConnections = value }
    if let value = idleTimeoutMs { config.idleTimeout = .milliseconds(Int64(value)) }
    if let value = headerTimeoutMs { config.headerTimeout = .milliseconds(Int64(value)) }
    if let value = requestTimeoutMs { config.requestTimeout = .milliseconds(Int64(value)) }
    if let value = minBodyBytesPerSecond { config.minimumBodyBytesPerSecond = value }
    if let value = bodyRateGraceMs { config.bodyRateGrace = .milliseconds(Int64(value)) }
    if let value = maxAdminBodyBytes { config.maximumAdminBodyBytes = value }
    if let value = unprovenTimeoutMs { config.unprovenTimeout = .milliseconds(Int64(value)) }
    config.tls = tls
    return config
  }
}

/// `service.grpc`: the gRPC door (docs/grpc.md). It listens only when `listen` (or
/// `--grpc-listen`) is given.
///
/// ```json
/// { "service": { "grpc": { "listen": "127.0.0.1:7705", "maxConnections": 1000,
///                          "maxConcurrentStreams": 64, "idleTimeoutMs": 300000,
///                          "handshakeTimeoutMs": 5000 } } }
/// ```
/// A message takes at most `service.maxMessageBytes`, as on the fast port.
struct GRPCDoorSettings: Decodable, Sendable {
  var listen: String?
  var maxConnections: Int?
  var maxConcurrentStreams: Int?
  var idleTimeoutMs: Int?
  var handshakeTimeoutMs: Int?
  /// TLS on the listener, mutual with `clientCAFile` (ServeSettings+GRPCDoor.swift).
  var tls: DoorTLS?

  func problems() -> [String] {
    var problems: [String] = []
    if let listen, let problem = ListenAddress.problem(listen, key: "service.grpc.listen") {
      problems.append(problem)
    }
    if let problem = tls?.problem(key: "service.grpc.tls") { problems.append(problem) }
    problems += DoorRanges.problems(
      "service.grpc",
      [
        ("maxConnections", maxConnections, 1...1_000_000),
        ("maxConcurrentStreams", maxConcurrentStreams, 1...10_000),
        ("idleTimeoutMs", idleTimeoutMs, 1_000...86_400_000),
        ("handshakeTimeoutMs", handshakeTimeoutMs, 100...600_000),
      ])
    return problems
  }
}

extension ServeSettings {
  /// Every problem of `service.http` and `service.grpc`, reported with the rest (`problems()`).
  func doorProblems() -> [String] {
    (http?.problems() ?? []) + (grpc?.problems() ?? [])
  }
}

private enum DoorRanges {
  static func problems(_ section: String, _ ranges: [(String, Int?, ClosedRange<Int>)]) -> [String] {
    ranges.compactMap { key, value, range in
      guard let value, !range.contains(value) else { return nil }
      return "\(section).\(key) must be between \(range.lowerBound) and \(range.upperBound)"
    }
  }
}
