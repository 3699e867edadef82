import Foundation
import Hummingbird
import Logging
import NIOCore
import StoreSimulator
import Synchronization

/// A company's webhook endpoint for tests, on a free loopback port: every POST is recorded with
/// the status it was answered with, and `decide` picks that status from the delivery (a receiver
/// that refuses one event, or everything for a while).
public final class WebhookReceiver: Sendable {
  public struct Delivery: Sendable {
    public var headers: [String: String]
    public var body: [UInt8]
    /// What the receiver answered.
    public var status: Int

    public var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }
    public var eventId: String? { headers["tollgate-event-id"] }
    public var kind: String? { json?["kind"] as? String }
    public var userId: String? { json?["userId"] as? String }
    public var accepted: Bool { (200..<300).contains(status) }
  }

  public typealias Decide = @Sendable (Delivery) -> Int

  private let deliveries = Mutex<[Delivery]>([])
  private let decide: Mutex<Decide>
  private let background = Mutex<BackgroundServer?>(nil)
  public let port: Int

  /// `http://127.0.0.1:<port>/hooks`.
  public var url: String { "http://127.0.0.1:\(port)/hooks" }

  private init(port: Int, decide: @escaping Decide) {
    self.port = port
    self.decide = Mutex(decide)
  }

  /// Starts a receiver that answers each delivery with `decide(delivery)` (204 by default).
  public static func start(_ decide: @escaping Decide = { _ in 204 }) async throws -> WebhookReceiver {
    let box = Mutex<WebhookReceiver?>(nil)
    let router = Router()
    router.post("**") { request, _ -> Response in
      guard let receiver = box.withLock({ $0 }) else { return Response(status: .serviceUnavailable) }
      var request = request
      let body = try await request.collectBody(upTo: 1 << 20)
      var headers: [String: String] = [:]
      for field in request.headers { headers[field.name.canonicalName] = field.value }
      var delivery = Delivery(headers: headers, body: Array(body.readableBytesView), status: 0)
      delivery.status = receiver.decide.withLock { $0 }(delivery)
      receiver.deliveries.withLock { $0.append(delivery) }
      return Response(status: .init(code: delivery.status))
    }
    let background = await BackgroundServer.start(logger: Logger(label: "test.http")) { onRunning in
      Application(
        router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), onServerRunning: onRunning)
    }
    guard let background else { throw CancellationError() }
    let receiver = WebhookReceiver(port: background.port, decide: decide)
    box.withLock { $0 = receiver }
    receiver.background.withLock { $0 = background }
    return receiver
  }

  /// Every delivery so far, in the order they arrived.
  public var recorded: [Delivery] { deliveries.withLock { $0 } }

  /// Answers from now on with `decide`.
  public func answer(_ decide: @escaping Decide) {
    self.decide.withLock { $0 = decide }
  }

  public func stop() async {
    await background.withLock { $0 }?.stop()
  }
}
