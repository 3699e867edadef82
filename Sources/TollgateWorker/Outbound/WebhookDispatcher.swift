import AsyncHTTPClient
import Foundation
import Logging
import TollgateCrypto

/// Delivers events to the company's webhook endpoints: in order, at least once (a cursor per
/// endpoint moves only after a 2xx), signed with HMAC-SHA256, with backoff on failure. Events of
/// chains not bound to a user yet are not sent (their user gets `purchased` when it is bound).
///
/// An event an endpoint keeps refusing (or never answers for) does not hold back the ones after
/// it for ever: once it has failed `maxAttempts` times in a row, or for `maxAgeMs` since its first
/// failure (`WebhookSettings.retryLimit`), it is parked and the stream moves on. A parked event
/// stays (housekeeping keeps it) until `tollgate webhooks redeliver` queues it again; this loop
/// then sends it beside the stream, out of order, with the same body and event id.
///
/// The body is `WebhookPayload` (version 2, docs/webhooks.md). Each request carries
/// `Tollgate-Event-Id` (the event's UUID), `Tollgate-Request-Id` when a request caused the event
/// (`WorkerEvent.requestId`), and `Tollgate-Signature: t=<ms>,v1=<hex>` where the
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

  /// Delivers to each endpoint while this worker holds the endpoint's job lease
  /// (`JobLease.webhook`, `SingletonJobs`): one worker of those on the database delivers to it,
  /// and every cursor, failure and redelivery write is fenced by that lease. Every worker reads
  /// the backlogs for its metrics when they are scraped (`VerifierWorker.refreshGauges`).
  func run(jobs: SingletonJobs) async {
    await withTaskGroup(of: Void.self) { group in
      for endpoint in endpoints {
        group.addTask {
          await jobs.run(JobLease.webhook(endpoint)) { lease in try await self.deliver(to: endpoint, lease: lease) }
        }
      }
    }
  }

  /// What each endpoint has not received, for `/health`, by its display name.
  func health() async -> [String: Any] {
    var endpoints: [String: Any] = [:]
    for endpoint in self.endpoints {
      guard let backlog = try? await storage.webhookBacklog(endpoint: endpoint.url, kinds: endpoint.events) else {
        continue
      }
      endpoints[endpoint.displayName] = WebhookMetrics.json(backlog, nowMs: nowMs())
    }
    return endpoints
  }

  /// Delivers to `endpoint` until cancelled; throws `StorageConflict` (`.leaseLost`) once a write
  /// finds `lease` no longer this worker's (nothing of that write landed).
  private func deliver(to endpoint: WebhookSettings, lease: JobLease?) async throws {
    var storageFailures = 0
    while !Task.isCancelled {
      do {
        let redelivered = try await redeliverDue(to: endpoint, lease: lease)
        let delivered = try await deliverStream(to: endpoint, lease: lease)
        storageFailures = 0
        if !redelivered && !delivered { try await Task.sleep(for: .milliseconds(pollMs * 4)) }
      } catch is CancellationError {
        return
      } catch let conflict as StorageConflict where conflict.kind == .leaseLost {
        throw conflict
      } catch let failure as HeadFailure {
        try? await Task.sleep(for: .milliseconds(failure.retryInMs))
      } catch {
        storageFailures += 1
        let delay = backoff.delayMs(attempt: storageFailures)
        logger.warning(
          "webhook delivery cannot use storage; will retry",
          metadata: ["webhook.endpoint": "\(endpoint.displayName)", "error": "\(error)", "retry.in_ms": "\(delay)"])
        try? await Task.sleep(for: .milliseconds(delay))
      }
    }
  }

  /// The event at the head of an endpoint's stream failed and was not parked: wait, then again.
  private struct HeadFailure: Error {
    var retryInMs: Int64
  }

  /// Delivers a batch of the events after the endpoint's cursor, in order. Returns whether there
  /// were any; throws `HeadFailure` when one failed and stays at the head.
  private func deliverStream(to endpoint: WebhookSettings, lease: JobLease?) async throws -> Bool {
    var cursor = try await storage.webhookCursor(endpoint: endpoint.url, nowMs: nowMs())
    let batch = try await storage.events(after: cursor, limit: 100)
    for stored in batch {
      // A chain nobody has claimed yet concerns no user of the company: nothing to act on.
      if stored.event.userId == nil || !(endpoint.events?.contains(stored.event.kind) ?? true) {
        cursor = stored.id
        continue
      }
      if let error = try await attempt(stored, to: endpoint) {
        try await storage.advanceWebhookCursor(endpoint: endpoint.url, to: cursor, nowMs: nowMs(), lease: lease)
        let record = try await storage.recordWebhookFailure(
          endpoint: endpoint.url, eventId: stored.id, error: error, limit: endpoint.retryLimit, nowMs: nowMs(),
          lease: lease)
        stats.webhookFailure()
        var metadata: Logger.Metadata = [
          "webhook.endpoint": "\(endpoint.displayName)", "event.id": "\(stored.eventId)",
          "event.kind": "\(stored.event.kind)", "error": "\(error)", "attempts": "\(record.attempts)",
        ]
        if record.parked {
          stats.webhooks.parked(endpoint: endpoint.displayName)
          logger.error(
            "webhook event parked: not taken within the retry limit; the events after it go on (webhooks redeliver)",
            metadata: metadata)
          cursor = stored.id
          continue
        }
        let delay = backoff.delayMs(attempt: record.attempts)
        metadata["retry.in_ms"] = "\(delay)"
        logger.warning("webhook delivery failed; will retry", metadata: metadata)
        throw HeadFailure(retryInMs: delay)
      }
      cursor = stored.id
      try await storage.advanceWebhookCursor(endpoint: endpoint.url, to: cursor, nowMs: nowMs(), lease: lease)
    }
    try await storage.advanceWebhookCursor(endpoint: endpoint.url, to: cursor, nowMs: nowMs(), lease: lease)
    return !batch.isEmpty
  }

  /// Sends the endpoint's parked events that are queued for redelivery and due now. Returns
  /// whether there were any.
  private func redeliverDue(to endpoint: WebhookSettings, lease: JobLease?) async throws -> Bool {
    let due = try await storage.dueWebhookRedeliveries(endpoint: endpoint.url, nowMs: nowMs(), limit: 20)
    for parked in due {
      let stored = try await storage.event(id: parked.eventId)
      // An event deleted from the database by hand leaves nothing to send.
      var error: String?
      if let stored { error = try await attempt(stored, to: endpoint) }
      let retryAtMs = nowMs() + backoff.delayMs(attempt: parked.attempts + 1)
      try await storage.finishWebhookRedelivery(
        endpoint: endpoint.url, eventId: parked.eventId, error: error, limit: endpoint.retryLimit,
        retryAtMs: retryAtMs, nowMs: nowMs(), lease: lease)
      let metadata: Logger.Metadata = [
        "webhook.endpoint": "\(endpoint.displayName)", "event.id": "\(stored?.eventId ?? String(parked.eventId))",
        "error": "\(error ?? "none")",
      ]
      if error == nil {
        logger.info("parked webhook event redelivered", metadata: metadata)
      } else {
        stats.webhookFailure()
        logger.warning("redelivery of a parked webhook event failed", metadata: metadata)
      }
    }
    return !due.isEmpty
  }

  /// One signed POST of `stored`: nil when the endpoint took it (2xx), else why not. Throws only
  /// `CancellationError`, when the worker stops during it (not the endpoint's fault).
  private func attempt(_ stored: StoredEvent, to endpoint: WebhookSettings) async throws -> String? {
    do {
      let status = try await WebhookSender.post(
        body: try WebhookPayload.body(stored), eventId: stored.eventId, requestId: stored.event.requestId,
        url: endpoint.url, secret: secrets[endpoint.url] ?? [], timestampMs: nowMs(), httpClient: httpClient)
      return (200..<300).contains(status) ? nil : "HTTP \(status)"
    } catch {
      try Task.checkCancellation()
      return String(String(describing: error).prefix(200))
    }
  }

  /// `t=<ms>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.
  static func signature(body: [UInt8], timestampMs: Int64, secret: [UInt8]) -> String {
    let mac = HMACSHA256.authenticationCode(for: Array("\(timestampMs).".utf8) + body, key: secret)
    return "t=\(timestampMs),v1=" + mac.hexString
  }
}
