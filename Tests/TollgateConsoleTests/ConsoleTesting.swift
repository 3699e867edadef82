import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import TollgateCallers

@testable import TollgateConsole

/// A console on a bare router (no door), with callers `ops` (admin) and `reader` (read), a clock
/// the test moves, and a log that records every line.
final class ConsoleTesting: Sendable {
  static let opsKey = "tgk_ops_console_key_0123456789abcdef"
  static let readerKey = "tgk_reader_console_key_0123456789ab"
  /// The router test client's requests are for `localhost` (their authority).
  static let origin = "http://localhost"
  static let host = "localhost"

  let registry = CallerRegistry([
    CallerKey(name: "ops", keySha256: CallerKey.digest(of: opsKey), scopes: .admin),
    CallerKey(name: "reader", keySha256: CallerKey.digest(of: readerKey), scopes: .read),
  ])
  let gate: CallerGate
  let console: SupportConsole
  let log = RecordedLog()
  let clock = TestClock()
  let isTLS: Bool
  let source = PeerSource(ipAddress: "192.0.2.7")!

  init(failedAuthenticationBurst: Int = 1_000, isTLS: Bool = false, config: SupportConsole.Config = .init()) {
    gate = CallerGate(
      access: .callers(registry),
      authenticationLimiter: AuthenticationLimiter(
        perMinute: 1, burst: failedAuthenticationBurst, maximumSources: 16),
      submitLimiter: SubmitRateLimiter(perSecond: 1, burst: 10))
    self.isTLS = isTLS
    let clock = self.clock
    let log = self.log
    console = SupportConsole(
      config: config, gate: gate, backend: ConsoleBackend(admin: { nil }, desk: { nil }),
      logger: Logger(label: "test.console", factory: { _ in RecordingLogHandler(log: log) }),
      sessionNowMs: { clock.nowMs })
  }

  func advance(byMs ms: Int64) { clock.advance(byMs: ms) }

  /// Answers requests with a router that mounts the console as the door does.
  func withClient<Value: Sendable>(_ body: @Sendable (any TestClientProtocol) async throws -> Value) async throws
    -> Value
  {
    let router = Router()
    let console = self.console
    let connection = ConsoleConnection(source: source, isTLS: isTLS)
    for path in ["/console", "/console/**"] {
      router.get(RouterPath(path)) { request, _ in await console.respond(to: request, connection: connection) }
      router.post(RouterPath(path)) { request, _ in await console.respond(to: request, connection: connection) }
    }
    let app = Application(router: router, logger: Logger(label: "test.app", factory: { _ in SwiftLogNoOpLogHandler() }))
    return try await app.test(.router) { client in try await body(client) }
  }

  /// A form POST from this origin.
  static func form(_ fields: [String: String], origin: String? = ConsoleTesting.origin, cookie: String? = nil)
    -> (headers: HTTPFields, body: ByteBuffer)
  {
    var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded", ConsoleHTTP.hostField: host]
    if let origin { headers[.origin] = origin }
    if let cookie { headers[.cookie] = cookie }
    let body = fields.map { "\(ConsoleHTTP.encode($0.key))=\(ConsoleHTTP.encode($0.value))" }.joined(separator: "&")
    return (headers, ByteBuffer(string: body))
  }

  static func get(cookie: String?) -> HTTPFields {
    var headers: HTTPFields = [ConsoleHTTP.hostField: host]
    if let cookie { headers[.cookie] = cookie }
    return headers
  }

  /// Signs `key` in; the session cookie (`name=value`) and the response.
  static func signIn(_ client: any TestClientProtocol, key: String = opsKey, operatorName: String = "") async throws
    -> (cookie: String?, response: TestResponse)
  {
    let form = form(["key": key, "operator": operatorName])
    let response = try await client.execute(
      uri: "/console/sign-in", method: .post, headers: form.headers, body: form.body)
    return (sessionCookie(response), response)
  }

  /// `tollgate_session=…` from a response's Set-Cookie, nil when it sets none (or clears it).
  static func sessionCookie(_ response: TestResponse) -> String? {
    guard let line = response.headers[values: .setCookie].first(where: { $0.hasPrefix("tollgate_session=") }),
      let pair = line.split(separator: ";").first, pair != "tollgate_session="
    else { return nil }
    return String(pair)
  }

  /// The CSRF token a page's forms carry.
  static func csrfToken(_ page: String) -> String? {
    guard let range = page.range(of: "name=\"csrf\" value=\"") else { return nil }
    return String(page[range.upperBound...].prefix(while: { $0 != "\"" }))
  }

  static func text(_ response: TestResponse) -> String { String(buffer: response.body) }
}

/// The sessions' clock, moved by the test.
final class TestClock: Sendable {
  private let ms = Mutex<Int64>(1_000_000)
  var nowMs: Int64 { ms.withLock { $0 } }
  func advance(byMs delta: Int64) { ms.withLock { $0 += delta } }
}

/// Every log line, with its metadata, as text.
final class RecordedLog: Sendable {
  private let lines = Mutex<[String]>([])
  func append(_ line: String) { lines.withLock { $0.append(line) } }
  var all: [String] { lines.withLock { $0 } }
}

struct RecordingLogHandler: LogHandler {
  let log: RecordedLog
  var metadata: Logger.Metadata = [:]
  var logLevel: Logger.Level = .trace

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) {
    let merged = metadata.merging(event.metadata ?? [:]) { $1 }
    log.append("\(event.level) \(event.message) \(merged)")
  }
}
