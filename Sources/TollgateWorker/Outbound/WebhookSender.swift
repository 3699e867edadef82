import AsyncHTTPClient
import Foundation
import NIOCore

/// One signed POST to a webhook endpoint, as the dispatcher and `tollgate webhooks test` send it.
enum WebhookSender {
  /// POSTs `body` with `Tollgate-Event-Id`, `Tollgate-Request-Id` (when `requestId` is set) and
  /// `Tollgate-Signature` (`WebhookDispatcher.signature`); returns the receiver's HTTP status.
  /// Throws when no answer came (refused, timed out).
  static func post(
    body: [UInt8], eventId: String, requestId: String? = nil, url: String, secret: [UInt8], timestampMs: Int64,
    httpClient: HTTPClient, timeout: TimeAmount = .seconds(10)
  ) async throws -> Int {
    var request = HTTPClientRequest(url: url)
    request.method = .POST
    request.headers.add(name: "Content-Type", value: "application/json")
    request.headers.add(name: "Tollgate-Event-Id", value: eventId)
    if let requestId { request.headers.add(name: "Tollgate-Request-Id", value: requestId) }
    request.headers.add(
      name: "Tollgate-Signature",
      value: WebhookDispatcher.signature(body: body, timestampMs: timestampMs, secret: secret))
    request.body = .bytes(ByteBuffer(bytes: body))
    let response = try await httpClient.execute(request, timeout: timeout)
    _ = try? await response.body.collect(upTo: 64 * 1024)
    return Int(response.status.code)
  }
}

/// `tollgate webhooks test`: a signed event of kind `test` sent to one endpoint, outside the
/// stream (nothing is stored, no cursor moves), whatever the endpoint's `events` filter says.
public enum WebhookTestEvent {
  /// The kind of the test event. Not one an `events` filter may name (`WorkerEvent.kinds`).
  public static let kind = "test"

  /// What the receiver answered.
  public struct Result: Sendable, Hashable {
    /// The test event's id (`Tollgate-Event-Id`, and `id` in the body).
    public var eventId: String
    public var status: Int
    public var accepted: Bool { (200..<300).contains(status) }
  }

  /// Sends one test event to `endpoint`, signed with `secret`; throws when no answer came.
  public static func send(
    to endpoint: WebhookSettings, secret: [UInt8], httpClient: HTTPClient = .shared, nowMs: Int64
  ) async throws -> Result {
    let eventId = UUID().uuidString.lowercased()
    let status = try await WebhookSender.post(
      body: try body(eventId: eventId, atMs: nowMs), eventId: eventId, url: endpoint.url, secret: secret,
      timestampMs: nowMs, httpClient: httpClient)
    return Result(eventId: eventId, status: status)
  }

  /// `{"apiVersion", "atMs", "detail", "id", "kind": "test"}`, keys sorted as every payload's.
  static func body(eventId: String, atMs: Int64) throws -> [UInt8] {
    struct Body: Encodable {
      var apiVersion: Int
      var id: String
      var kind: String
      var atMs: Int64
      var detail: String
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return Array(
      try encoder.encode(
        Body(
          apiVersion: WebhookPayload.apiVersion, id: eventId, kind: kind, atMs: atMs,
          detail: "sent by tollgate webhooks test")))
  }
}
