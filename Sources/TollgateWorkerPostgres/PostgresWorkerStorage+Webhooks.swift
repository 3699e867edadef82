import PostgresNIO
import TollgateStorage
import TollgateWorker

/// Webhook delivery's bookkeeping beyond the cursors: failed attempts at the event after each
/// endpoint's cursor (on its `webhook_cursors` row) and parked events (`webhook_parked`). Each
/// write is one transaction, fenced by the worker lease and by the delivery's job lease; the
/// cursor row is locked (`FOR UPDATE`) before it is read, so two writers of one endpoint's
/// bookkeeping take turns instead of counting one failure twice.
extension PostgresWorkerStorage {
  public func recordWebhookFailure(
    endpoint: String, eventId: Int64, error: String, limit: WebhookRetryLimit, nowMs: Int64, lease: JobLease?
  ) async throws -> WebhookFailureRecord {
    try await fencedTransaction { connection in
      try await Self.checkJobLease(connection, lease, logger: logger)
      let previous = try await connection.query(
        """
        SELECT failing_event_id, failed_attempts, first_failed_at_ms FROM webhook_cursors
        WHERE endpoint = \(endpoint) FOR UPDATE
        """, logger: logger
      ).collect().first.map { try $0.decode((Int64?, Int64, Int64?).self) }
      var record = WebhookFailureRecord(attempts: 1, firstFailedAtMs: nowMs, parked: false)
      if let previous, previous.0 == eventId {
        record.attempts = Int(previous.1) + 1
        record.firstFailedAtMs = previous.2 ?? nowMs
      }
      record.parked = limit.isReached(attempts: record.attempts, firstFailedAtMs: record.firstFailedAtMs, nowMs: nowMs)
      let attempts = Int64(record.attempts)
      if record.parked {
        try await connection.query(
          """
          INSERT INTO webhook_parked (endpoint, event_id, status, attempts, first_failed_at_ms, parked_at_ms, last_error)
          VALUES (\(endpoint), \(eventId), 'parked', \(attempts), \(record.firstFailedAtMs), \(nowMs), \(error))
          ON CONFLICT (endpoint, event_id) DO UPDATE SET status = 'parked', attempts = excluded.attempts,
            first_failed_at_ms = excluded.first_failed_at_ms, parked_at_ms = excluded.parked_at_ms,
            last_error = excluded.last_error
          """, logger: logger)
        try await connection.query(
          """
          UPDATE webhook_cursors SET last_event_id = GREATEST(last_event_id, \(eventId)), failing_event_id = NULL,
            failed_attempts = 0, first_failed_at_ms = NULL, updated_at_ms = \(nowMs)
          WHERE endpoint = \(endpoint)
          """, logger: logger)
      } else {
        try await connection.query(
          """
          UPDATE webhook_cursors SET failing_event_id = \(eventId), failed_attempts = \(attempts),
            first_failed_at_ms = \(record.firstFailedAtMs), updated_at_ms = \(nowMs)
          WHERE endpoint = \(endpoint)
          """, logger: logger)
      }
      return record
    }
  }

  public func parkedWebhookEvents(endpoint: String?) async throws -> [ParkedWebhookEvent] {
    let rows: [PostgresRow]
    if let endpoint {
      rows = try await database.query(
        """
        SELECT \(unescaped: Self.parkedColumns) FROM webhook_parked WHERE endpoint = \(endpoint)
        ORDER BY event_id, endpoint
        """)
    } else {
      rows = try await database.query(
        "SELECT \(unescaped: Self.parkedColumns) FROM webhook_parked ORDER BY event_id, endpoint")
    }
    return try rows.map(Self.parked)
  }

  public func requestWebhookRedelivery(eventIds: [Int64]?, endpoint: String?) async throws -> Int {
    if let eventIds, eventIds.isEmpty { return 0 }
    return try await fencedTransaction { connection in
      let query: PostgresQuery = """
        WITH queued AS (
          UPDATE webhook_parked SET status = 'queued', attempts = 0, first_failed_at_ms = NULL, next_attempt_at_ms = 0
          WHERE (\(endpoint)::text IS NULL OR endpoint = \(endpoint)::text)
            AND (\(eventIds)::bigint[] IS NULL OR event_id = ANY(\(eventIds)::bigint[]))
          RETURNING 1)
        SELECT COUNT(*) FROM queued
        """
      return try await Self.count(connection.query(query, logger: logger).collect())
    }
  }

  public func dueWebhookRedeliveries(endpoint: String, nowMs: Int64, limit: Int) async throws -> [ParkedWebhookEvent] {
    try await database.query(
      """
      SELECT \(unescaped: Self.parkedColumns) FROM webhook_parked
      WHERE endpoint = \(endpoint) AND status = 'queued' AND next_attempt_at_ms <= \(nowMs)
      ORDER BY event_id LIMIT \(Int64(limit))
      """
    ).map(Self.parked)
  }

  public func finishWebhookRedelivery(
    endpoint: String, eventId: Int64, error: String?, limit: WebhookRetryLimit, retryAtMs: Int64, nowMs: Int64,
    lease: JobLease?
  ) async throws {
    try await fencedTransaction { connection in
      try await Self.checkJobLease(connection, lease, logger: logger)
      guard let error else {
        try await connection.query(
          "DELETE FROM webhook_parked WHERE endpoint = \(endpoint) AND event_id = \(eventId)", logger: logger)
        return
      }
      let row = try await connection.query(
        """
        SELECT attempts, first_failed_at_ms FROM webhook_parked
        WHERE endpoint = \(endpoint) AND event_id = \(eventId) AND status = 'queued' FOR UPDATE
        """, logger: logger
      ).collect().first
      guard let (previousAttempts, since) = try row?.decode((Int64, Int64?).self) else { return }
      let attempts = Int(previousAttempts) + 1
      let firstFailedAtMs = since ?? nowMs
      let parkAgain = limit.isReached(attempts: attempts, firstFailedAtMs: firstFailedAtMs, nowMs: nowMs)
      try await connection.query(
        """
        UPDATE webhook_parked SET status = \(parkAgain ? "parked" : "queued"), attempts = \(Int64(attempts)),
          first_failed_at_ms = \(firstFailedAtMs), next_attempt_at_ms = \(retryAtMs), last_error = \(error),
          parked_at_ms = CASE WHEN \(parkAgain) THEN \(nowMs) ELSE parked_at_ms END
        WHERE endpoint = \(endpoint) AND event_id = \(eventId)
        """, logger: logger)
    }
  }

  /// Read in one transaction (one snapshot: `REPEATABLE READ`), so the counts agree with each
  /// other while deliveries move on.
  public func webhookBacklog(endpoint: String, kinds: [String]?) async throws -> WebhookBacklog {
    try await database.transaction { connection in
      try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
      var backlog = WebhookBacklog()
      let cursor = try await connection.query(
        "SELECT last_event_id FROM webhook_cursors WHERE endpoint = \(endpoint)", logger: logger
      ).collect().first?.decode(Int64.self)
      // An endpoint that filters every kind out takes nothing from the stream.
      if let cursor, kinds?.isEmpty != true {
        let query: PostgresQuery = """
          SELECT COUNT(*), MIN(at_ms) FROM events WHERE id > \(cursor) AND user_id IS NOT NULL
            AND (\(kinds)::text[] IS NULL OR kind = ANY(\(kinds)::text[]))
          """
        if let row = try await connection.query(query, logger: logger).collect().first {
          let (count, oldest) = try row.decode((Int64, Int64?).self)
          backlog.undelivered = Int(count)
          backlog.oldestUndeliveredAtMs = oldest
        }
      }
      let parked = try await connection.query(
        """
        SELECT p.status, COUNT(*), MIN(e.at_ms) FROM webhook_parked p LEFT JOIN events e ON e.id = p.event_id
        WHERE p.endpoint = \(endpoint) GROUP BY p.status
        """, logger: logger
      ).collect()
      for row in parked {
        let (status, count, oldest) = try row.decode((String, Int64, Int64?).self)
        if status == "parked" {
          backlog.parked = Int(count)
        } else {
          backlog.undelivered += Int(count)
          if let oldest { backlog.oldestUndeliveredAtMs = min(backlog.oldestUndeliveredAtMs ?? oldest, oldest) }
        }
      }
      return backlog
    }
  }

  private static let parkedColumns =
    "endpoint, event_id, attempts, first_failed_at_ms, parked_at_ms, last_error, status"

  private static func parked(_ row: PostgresRow) throws -> ParkedWebhookEvent {
    let (endpoint, eventId, attempts, firstFailedAtMs, parkedAtMs, lastError, status) = try row.decode(
      (String, Int64, Int64, Int64?, Int64, String?, String).self)
    return ParkedWebhookEvent(
      endpoint: endpoint, eventId: eventId, attempts: Int(attempts), firstFailedAtMs: firstFailedAtMs,
      parkedAtMs: parkedAtMs, lastError: lastError, queued: status == "queued")
  }

  /// The one `COUNT(*)` a statement returned.
  static func count(_ rows: [PostgresRow]) throws -> Int {
    Int(try rows.first?.decode(Int64.self) ?? 0)
  }
}
