/// When an event an endpoint keeps refusing is parked: after `maxAttempts` failed attempts in a
/// row, or `maxAgeMs` after the first of them, whichever comes first (`WebhookSettings`).
public struct WebhookRetryLimit: Sendable, Hashable {
  public var maxAttempts: Int
  public var maxAgeMs: Int64

  public init(maxAttempts: Int, maxAgeMs: Int64) {
    self.maxAttempts = maxAttempts
    self.maxAgeMs = maxAgeMs
  }

  /// Whether an event that has failed `attempts` times, the first at `firstFailedAtMs`, is done
  /// being retried at `nowMs`.
  public func isReached(attempts: Int, firstFailedAtMs: Int64, nowMs: Int64) -> Bool {
    attempts >= maxAttempts || nowMs - firstFailedAtMs >= maxAgeMs
  }
}

/// How a failed delivery of the event at the head of an endpoint's stream stands once counted.
public struct WebhookFailureRecord: Sendable, Hashable {
  /// Failed attempts in a row at this event, this one included.
  public var attempts: Int
  public var firstFailedAtMs: Int64
  /// The limit was reached: the event is parked and the endpoint's cursor is past it.
  public var parked: Bool

  public init(attempts: Int, firstFailedAtMs: Int64, parked: Bool) {
    self.attempts = attempts
    self.firstFailedAtMs = firstFailedAtMs
    self.parked = parked
  }
}

/// An event an endpoint would not take within its retry limit, kept aside so the events after it
/// could be delivered. It stays (and its event is never pruned) until it is delivered again.
public struct ParkedWebhookEvent: Sendable, Hashable {
  public var endpoint: String
  public var eventId: Int64
  /// Failed attempts: before it was parked, or since its redelivery was requested.
  public var attempts: Int
  /// The first failed attempt of those; nil for a redelivery not attempted yet.
  public var firstFailedAtMs: Int64?
  public var parkedAtMs: Int64
  /// The last failure: the receiver's HTTP status, or why no answer came.
  public var lastError: String?
  /// Redelivery was requested (`tollgate webhooks redeliver`): the worker sends it again.
  public var queued: Bool

  public init(
    endpoint: String, eventId: Int64, attempts: Int, firstFailedAtMs: Int64?, parkedAtMs: Int64, lastError: String?,
    queued: Bool
  ) {
    self.endpoint = endpoint
    self.eventId = eventId
    self.attempts = attempts
    self.firstFailedAtMs = firstFailedAtMs
    self.parkedAtMs = parkedAtMs
    self.lastError = lastError
    self.queued = queued
  }
}

/// What an endpoint has not received yet (for `/health` and metrics).
public struct WebhookBacklog: Sendable, Hashable {
  /// Events waiting to be delivered: those after the endpoint's cursor that it takes (bound to a
  /// user, of a kind its filter names) and parked events queued for redelivery.
  public var undelivered: Int
  /// The `atMs` of the oldest of them; nil when there is none.
  public var oldestUndeliveredAtMs: Int64?
  /// Parked events not queued for redelivery: they wait for an operator.
  public var parked: Int

  public init(undelivered: Int = 0, oldestUndeliveredAtMs: Int64? = nil, parked: Int = 0) {
    self.undelivered = undelivered
    self.oldestUndeliveredAtMs = oldestUndeliveredAtMs
    self.parked = parked
  }
}

extension WorkerStorage {
  /// The stored event with sequence number `id`, nil when there is none (any more).
  public func event(id: Int64) async throws -> StoredEvent? {
    try await events(after: id - 1, limit: 1).first { $0.id == id }
  }
}
