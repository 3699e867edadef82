/// Where one endpoint's delivery stream stands: its `webhook_cursors` row. The storages read it
/// for `WorkerStorage.webhookDeliveries(userId:limit:)`; `EventDeliveries.combine` turns it into
/// each event's delivery.
public struct WebhookCursorState: Sendable, Hashable {
  public var endpoint: String
  /// The last event the endpoint acknowledged, or the stream passed (parked, not taken).
  public var lastEventId: Int64
  /// The last event that failed at the head of the stream, with its failed attempts in a row and
  /// the first of them; it stays after the event went through (the attempts before it did).
  public var failingEventId: Int64?
  public var failedAttempts: Int
  public var firstFailedAtMs: Int64?

  public init(
    endpoint: String, lastEventId: Int64, failingEventId: Int64? = nil, failedAttempts: Int = 0,
    firstFailedAtMs: Int64? = nil
  ) {
    self.endpoint = endpoint
    self.lastEventId = lastEventId
    self.failingEventId = failingEventId
    self.failedAttempts = failedAttempts
    self.firstFailedAtMs = firstFailedAtMs
  }
}

/// How one event stands with one webhook endpoint, from what the storage keeps of deliveries (the
/// endpoint's cursor, the failures at its head, parked events); no HTTP status of a 2xx is kept.
public struct WebhookDeliveryStatus: Sendable, Hashable {
  public enum State: String, Sendable, Hashable, CaseIterable {
    /// The endpoint's cursor is past the event: it answered 2xx (or the endpoint's `events`
    /// filter does not take the kind, or the endpoint was added after the event).
    case delivered
    /// After the cursor, not tried yet.
    case pending
    /// At the head of the endpoint's stream, failed `attempts` times so far: it is retried.
    case failing
    /// Set aside after the retry limit: the endpoint never took it (`tollgate webhooks redeliver`).
    case parked
    /// Parked, then queued for redelivery: the worker sends it again.
    case queued
  }

  public var endpoint: String
  public var state: State
  /// Failed attempts: so far (failing, parked, queued), or before it went through (delivered).
  public var attempts: Int
  public var firstFailedAtMs: Int64?
  /// The last failure kept (parked and queued events: the receiver's status or why no answer came).
  public var lastError: String?
  public var parkedAtMs: Int64?

  public init(
    endpoint: String, state: State, attempts: Int = 0, firstFailedAtMs: Int64? = nil, lastError: String? = nil,
    parkedAtMs: Int64? = nil
  ) {
    self.endpoint = endpoint
    self.state = state
    self.attempts = attempts
    self.firstFailedAtMs = firstFailedAtMs
    self.lastError = lastError
    self.parkedAtMs = parkedAtMs
  }
}

/// One of a user's events with its delivery to every webhook endpoint the database knows (every
/// endpoint with a cursor, by endpoint URL).
public struct EventDeliveries: Sendable, Hashable {
  public var event: StoredEvent
  public var deliveries: [WebhookDeliveryStatus]

  public init(event: StoredEvent, deliveries: [WebhookDeliveryStatus]) {
    self.event = event
    self.deliveries = deliveries
  }

  /// Each of `events` (in their order) with its delivery to each of `cursors`' endpoints (sorted
  /// by endpoint): parked or queued when `parked` holds it for that endpoint, else delivered once
  /// the cursor is at or past it, failing when it is the endpoint's failing head, pending otherwise.
  public static func combine(
    events: [StoredEvent], cursors: [WebhookCursorState], parked: [ParkedWebhookEvent]
  ) -> [EventDeliveries] {
    var parkedBy: [String: ParkedWebhookEvent] = [:]
    for entry in parked { parkedBy["\(entry.eventId) \(entry.endpoint)"] = entry }
    let sortedCursors = cursors.sorted { $0.endpoint < $1.endpoint }
    return events.map { stored in
      let deliveries = sortedCursors.map { cursor -> WebhookDeliveryStatus in
        if let entry = parkedBy["\(stored.id) \(cursor.endpoint)"] {
          return WebhookDeliveryStatus(
            endpoint: cursor.endpoint, state: entry.queued ? .queued : .parked, attempts: entry.attempts,
            firstFailedAtMs: entry.firstFailedAtMs, lastError: entry.lastError, parkedAtMs: entry.parkedAtMs)
        }
        let failedHere = cursor.failingEventId == stored.id && cursor.failedAttempts > 0
        var status = WebhookDeliveryStatus(endpoint: cursor.endpoint, state: .pending)
        if failedHere {
          status.attempts = cursor.failedAttempts
          status.firstFailedAtMs = cursor.firstFailedAtMs
        }
        if stored.id <= cursor.lastEventId {
          status.state = .delivered
        } else if failedHere {
          status.state = .failing
        }
        return status
      }
      return EventDeliveries(event: stored, deliveries: deliveries)
    }
  }
}
