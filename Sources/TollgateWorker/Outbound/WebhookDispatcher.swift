import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import TollgateCrypto

/// Delivers events to the company's webhook endpoints: in order, at least once (a cursor per
/// endpoint moves only after a 2xx), signed with HMAC-SHA256, with backoff on failure. Events of
/// chains not bound to a user yet are not sent (their user gets `purchased` when it is bound).
///
/// The body is `WebhookPayload` (version 2, docs/webhooks.md). Each request carries
/// `Tollgate-Event-Id` (the event's UUID) and `Tollgate-Signature: t=<ms>,v1=<hex>` where the
/// hex is HMAC-SHA256(secret, "<t>.<body>"). A receiver recomputes it, compares in constant
/// time, and ignores an event id it has already seen.
struct WebhookDispatcher: Sendable {
  let endpoints: [WebhookSettings]
  let stats: WorkerStats
  let secrets: [String: [UInt8]]
  let storage: any WorkerStorage
  let httpClient: HTTPClient
  let backoff: Backoff
  let pollMs: Int64
  let nowMs: @Sendable () -> Int64
  let logger: Logger

  func run() async {
    await withTaskGroup(of: Void.self) { group in
      for endpoint in endpoints {
        group.addTask { await self.deliver(to: endpoint) }
      }
    }
  }

  private func deliver(to endpoint: WebhookSettings) async {
    var failures = 0
    while !Task.isCancelled {
      do {
        var cursor = try await storage.webhookCursor(endpoint: endpoint.url, nowMs: nowMs())
        let batch = try await storage.events(after: cursor, limit: 100)
        for stored in batch {
          // A chain nobody has claimed yet concerns no user of the company: nothing to act on.
          if stored.event.userId == nil || !(endpoint.events?.contains(stored.event.kind) ?? true) {
            cursor = stored.id
            continue
          }
          try await post(stored, to: endpoint)
          cursor = stored.id
          try await storage.advanceWebhookCursor(endpoint: endpoint.url, to: cursor, nowMs: nowMs())
          failures = 0
        }
        try await storage.advanceWebhookCursor(endpoint: endpoint.url, to: cursor, nowMs: nowMs())
        if batch.isEmpty { try await Task.sleep(for: .milliseconds(pollMs * 4)) }
      } catch is CancellationError {
        return
      } catch {
        failures += 1
        stats.webhookFailure()
        let delay = backoff.delayMs(attempt: failures)
        logger.warning(
          "webhook delivery failed; will retry",
          metadata: ["webhook.url": "\(endpoint.url)", "error": "\(error)", "retry.in_ms": "\(delay)"])
        try? await Task.sleep(for: .milliseconds(delay))
      }
    }
  }

  struct DeliveryFailed: Error, CustomStringConvertible {
    var description: String
  }

  private func post(_ stored: StoredEvent, to endpoint: WebhookSettings) async throws {
    let body = try WebhookPayload.body(stored)
    let timestamp = nowMs()
    var request = HTTPClientRequest(url: endpoint.url)
    request.method = .POST
    request.headers.add(name: "Content-Type", value: "application/json")
    request.headers.add(name: "Tollgate-Event-Id", value: stored.eventId)
    request.headers.add(
      name: "Tollgate-Signature",
      value: Self.signature(body: body, timestampMs: timestamp, secret: secrets[endpoint.url] ?? []))
    request.body = .bytes(ByteBuffer(bytes: body))
    let response = try await httpClient.execute(request, timeout: .seconds(10))
    _ = try? await response.body.collect(upTo: 64 * 1024)
    guard (200..<300).contains(Int(response.status.code)) else {
      throw DeliveryFailed(description: "HTTP \(response.status.code)")
    }
  }

  /// `t=<ms>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.
  static func signature(body: [UInt8], timestampMs: Int64, secret: [UInt8]) -> String {
    let mac = HMACSHA256.authenticationCode(for: Array("\(timestampMs).".utf8) + body, key: secret)
    return "t=\(timestampMs),v1=" + mac.hexString
  }
}
