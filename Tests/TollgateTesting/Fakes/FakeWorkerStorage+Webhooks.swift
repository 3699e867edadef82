import TollgateWorker

/// The fake's webhook bookkeeping: the failing event of each endpoint and its parked events.
package struct FakeWebhookBook: Sendable {
  package var failing: [String: (eventId: Int64, attempts: Int, since: Int64)] = [:]
  package var parked: [String: [Int64: ParkedWebhookEvent]] = [:]
  package var nextAttemptAtMs: [String: [Int64: Int64]] = [:]
}

/// Parking as SQLite does it (`SQLiteWorkerStorage+Webhooks`), in memory.
extension FakeWorkerStorage {
  package func recordWebhookFailure(
    endpoint: String, eventId: Int64, error: String, limit: WebhookRetryLimit, nowMs: Int64
  ) -> WebhookFailureRecord {
    var record = WebhookFailureRecord(attempts: 1, firstFailedAtMs: nowMs, parked: false)
    if let previous = webhookBook.failing[endpoint], previous.eventId == eventId {
      record.attempts = previous.attempts + 1
      record.firstFailedAtMs = previous.since
    }
    record.parked = limit.isReached(attempts: record.attempts, firstFailedAtMs: record.firstFailedAtMs, nowMs: nowMs)
    if record.parked {
      webhookBook.failing[endpoint] = nil
      webhookBook.parked[endpoint, default: [:]][eventId] = ParkedWebhookEvent(
        endpoint: endpoint, eventId: eventId, attempts: record.attempts, firstFailedAtMs: record.firstFailedAtMs,
        parkedAtMs: nowMs, lastError: error, queued: false)
      advanceWebhookCursor(endpoint: endpoint, to: eventId, nowMs: nowMs)
    } else {
      webhookBook.failing[endpoint] = (eventId, record.attempts, record.firstFailedAtMs)
    }
    return record
  }

  package func parkedWebhookEvents(endpoint: String?) -> [ParkedWebhookEvent] {
    webhookBook.parked.filter { endpoint == nil || $0.key == endpoint }.flatMap(\.value.values)
      .sorted { ($0.eventId, $0.endpoint) < ($1.eventId, $1.endpoint) }
  }

  package func requestWebhookRedelivery(eventIds: [Int64]?, endpoint: String?) -> Int {
    var count = 0
    for (key, events) in webhookBook.parked where endpoint == nil || key == endpoint {
      for (id, var event) in events where eventIds?.contains(id) ?? true {
        event.queued = true
        event.attempts = 0
        event.firstFailedAtMs = nil
        webhookBook.parked[key]?[id] = event
        webhookBook.nextAttemptAtMs[key, default: [:]][id] = 0
        count += 1
      }
    }
    return count
  }

  package func dueWebhookRedeliveries(endpoint: String, nowMs: Int64, limit: Int) -> [ParkedWebhookEvent] {
    Array(
      parkedWebhookEvents(endpoint: endpoint).filter {
        $0.queued && (webhookBook.nextAttemptAtMs[endpoint]?[$0.eventId] ?? 0) <= nowMs
      }
      .prefix(limit))
  }

  package func finishWebhookRedelivery(
    endpoint: String, eventId: Int64, error: String?, limit: WebhookRetryLimit, retryAtMs: Int64, nowMs: Int64
  ) {
    guard var event = webhookBook.parked[endpoint]?[eventId], event.queued else { return }
    guard let error else {
      webhookBook.parked[endpoint]?[eventId] = nil
      return
    }
    event.attempts += 1
    let since = event.firstFailedAtMs ?? nowMs
    event.firstFailedAtMs = since
    event.lastError = error
    if limit.isReached(attempts: event.attempts, firstFailedAtMs: since, nowMs: nowMs) {
      event.queued = false
      event.parkedAtMs = nowMs
    }
    webhookBook.parked[endpoint]?[eventId] = event
    webhookBook.nextAttemptAtMs[endpoint, default: [:]][eventId] = retryAtMs
  }

  package func webhookBacklog(endpoint: String, kinds: [String]?) -> WebhookBacklog {
    var backlog = WebhookBacklog()
    let atMs = Dictionary(storedEvents.map { ($0.id, $0.event.atMs) }) { a, _ in a }
    if let cursor = cursors[endpoint] {
      let waiting = storedEvents.filter {
        $0.id > cursor && $0.event.userId != nil && (kinds?.contains($0.event.kind) ?? true)
      }
      backlog.undelivered = waiting.count
      backlog.oldestUndeliveredAtMs = waiting.map(\.event.atMs).min()
    }
    for event in parkedWebhookEvents(endpoint: endpoint) {
      if event.queued {
        backlog.undelivered += 1
        if let at = atMs[event.eventId] {
          backlog.oldestUndeliveredAtMs = min(backlog.oldestUndeliveredAtMs ?? at, at)
        }
      } else {
        backlog.parked += 1
      }
    }
    return backlog
  }
}
