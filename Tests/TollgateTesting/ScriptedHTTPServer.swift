import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import StoreSimulator
import Synchronization

/// A local HTTP server that answers from a script: each `METHOD /path` has a queue of replies
/// (status, headers, body, optional delay); every request is recorded. For testing HTTP clients
/// against misbehaving stores (429, 5xx, slow answers) without a network.
public final class ScriptedHTTPServer: Sendable {
  public struct Reply: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]
    public var delay: Duration?

    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = [], delay: Duration? = nil) {
      self.status = status
      self.headers = headers
      self.body = body
      self.delay = delay
    }

    public static func json(_ status: Int, _ object: Any, headers: [String: String] = [:], delay: Duration? = nil)
      -> Reply
    {
      let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
      var headers = headers
      headers["Content-Type"] = "application/json"
      return Reply(status: status, headers: headers, body: Array(data), delay: delay)
    }
  }

  /// A request as it arrived; header names are lowercase.
  public struct Recorded: Sendable {
    public var method: String
    public var path: String
    public var query: String
    public var headers: [String: String]
    public var body: [UInt8]

    public var jsonBody: [String: Any]? {
      (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
    }
  }

  private struct State {
    var replies: [String: [Reply]] = [:]
    var recorded: [Recorded] = []
  }

  private let state = Mutex(State())
  private let background = Mutex<BackgroundServer?>(nil)
  public let port: Int

  public var baseURL: String { "http://127.0.0.1:\(port)" }

  private init(port: Int) {
    self.port = port
  }

  /// Starts a server on a free loopback port.
  public static func start() async throws -> ScriptedHTTPServer {
    let box = Mutex<ScriptedHTTPServer?>(nil)
    let router = Router()
    let handler: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
      guard let server = box.withLock({ $0 }) else { return Response(status: .serviceUnavailable) }
      return try await server.answer(request)
    }
    router.get("**", use: handler)
    router.post("**", use: handler)
    let background = await BackgroundServer.start(logger: Logger(label: "test.http")) { onRunning in
      Application(
        router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), onServerRunning: onRunning)
    }
    guard let background else { throw CancellationError() }
    let server = ScriptedHTTPServer(port: background.port)
    box.withLock { $0 = server }
    server.background.withLock { $0 = background }
    return server
  }

  /// Queues `reply` for the next request to `method path` (path without the query string).
  public func enqueue(_ method: String, _ path: String, _ reply: Reply) {
    state.withLock { $0.replies["\(method) \(path)", default: []].append(reply) }
  }

  public var recorded: [Recorded] { state.withLock { $0.recorded } }

  public func stop() async {
    await background.withLock { $0 }?.stop()
  }

  private func answer(_ request: Request) async throws -> Response {
    var request = request
    let body = try await request.collectBody(upTo: 8 << 20)
    var headers: [String: String] = [:]
    for field in request.headers { headers[field.name.canonicalName] = field.value }
    let method = request.method.rawValue
    let path = request.uri.path
    let reply = state.withLock { state -> Reply? in
      state.recorded.append(
        Recorded(
          method: method, path: path, query: request.uri.query ?? "", headers: headers,
          body: Array(body.readableBytesView)))
      guard var queue = state.replies["\(method) \(path)"], !queue.isEmpty else { return nil }
      let next = queue.removeFirst()
      state.replies["\(method) \(path)"] = queue
      return next
    }
    guard let reply else {
      return Response(status: .init(code: 599, reasonPhrase: "no scripted reply"))
    }
    if let delay = reply.delay { try await Task.sleep(for: delay) }
    var fields = HTTPFields()
    for (name, value) in reply.headers {
      if let name = HTTPField.Name(name) { fields[name] = value }
    }
    return Response(
      status: .init(code: reply.status), headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: reply.body)))
  }
}
