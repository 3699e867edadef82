import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import ServiceLifecycle
import SwiftProtobuf
import TollgateCallers
import TollgateHTTPAPI

/// Callers, keys and a door for the tests: `reader` (read), `submitter` (read, submit) and `ops`
/// (admin), each with its own key.
enum DoorTesting {
  static let readerKey = "tgk_reader_key_for_tests"
  static let submitterKey = "tgk_submitter_key_for_tests"
  static let opsKey = "tgk_ops_key_for_tests"
  static let logger = Logger(label: "test.http-door", factory: { _ in SwiftLogNoOpLogHandler() })

  static func gate(failedAuthenticationBurst: Int = 1_000, submitBurst: Int = 1_000) -> CallerGate {
    CallerGate(
      access: .callers(
        CallerRegistry([
          CallerKey(name: "reader", keySha256: CallerKey.digest(of: readerKey), scopes: .read),
          CallerKey(name: "submitter", keySha256: CallerKey.digest(of: submitterKey), scopes: [.read, .submit]),
          CallerKey(name: "ops", keySha256: CallerKey.digest(of: opsKey), scopes: .admin),
        ])),
      authenticationLimiter: AuthenticationLimiter(
        perMinute: 1, burst: failedAuthenticationBurst, maximumSources: 16),
      submitLimiter: SubmitRateLimiter(perSecond: 1, burst: submitBurst))
  }

  static func bearer(_ key: String) -> HTTPFields { [.authorization: "Bearer \(key)"] }

  static func json(_ key: String) -> HTTPFields {
    [.authorization: "Bearer \(key)", .contentType: "application/json"]
  }

  /// Answers requests with the door's router, no socket (`app.test(.router)`).
  static func withRouter<Value: Sendable>(
    handler: FakeDoorHandler = FakeDoorHandler(), gate: CallerGate = gate(),
    config: HTTPDoor.Config = HTTPDoor.Config(host: "127.0.0.1", port: 0),
    _ body: @Sendable (any TestClientProtocol) async throws -> Value
  ) async throws -> Value {
    let router = HTTPDoor.router(config: config, handler: handler, gate: gate, logger: logger)
    let app = Application(router: router, logger: logger)
    return try await app.test(.router) { client in try await body(client) }
  }

  /// Runs a door on a free loopback port until `body` returns, then shuts it down gracefully.
  static func withLiveDoor(
    handler: FakeDoorHandler = FakeDoorHandler(), gate: CallerGate = gate(),
    config: HTTPDoor.Config = HTTPDoor.Config(host: "127.0.0.1", port: 0), _ body: (_ port: Int) async throws -> Void
  ) async throws {
    let door = try HTTPDoor(config: config, handler: handler, gate: gate, logger: logger)
    let group = ServiceGroup(configuration: .init(services: [door], logger: logger))
    try await withThrowingTaskGroup(of: Void.self) { tasks in
      tasks.addTask { try await group.run() }
      let port = await door.boundPort()
      do {
        try await body(port)
      } catch {
        await group.triggerGracefulShutdown()
        throw error
      }
      await group.triggerGracefulShutdown()
      try await tasks.waitForAll()
    }
  }

  /// A request a route answers: its path with sample parameters (and query), and a body.
  static func sample(_ route: HTTPRoute) -> (uri: String, body: ByteBuffer?) {
    var uri = route.path.replacingOccurrences(of: "{userId}", with: "u1")
      .replacingOccurrences(of: "{entitlement}", with: "premium")
      .replacingOccurrences(of: "{submissionId}", with: "s1")
    if route.endpoint == .lookUp { uri += "?identifier=2000000123456789" }
    switch route.endpoint {
    case .submitPurchase: return (uri, ByteBuffer(string: #"{"userId":"u1","receipt":"abc"}"#))
    case .grant: return (uri, ByteBuffer(string: #"{"entitlement":"premium","until":"2030-01-01T00:00:00Z"}"#))
    default: return (uri, nil)
    }
  }

  /// The body as a JSON object.
  static func object(_ body: ByteBuffer) throws -> [String: Any] {
    try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any] ?? [:]
  }

  /// SwiftProtobuf's own JSON of `message`, parsed: what the door must have answered.
  static func expected(_ message: some SwiftProtobuf.Message) throws -> NSDictionary {
    try JSONSerialization.jsonObject(with: Data(message.jsonString().utf8)) as? NSDictionary ?? [:]
  }

  /// `text` as one path segment, as `encodeURIComponent` sends it.
  static func segment(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: unreserved)) ?? ""
  }

  static let unreserved = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
}
