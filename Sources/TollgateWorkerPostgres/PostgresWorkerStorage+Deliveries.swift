import PostgresNIO
import TollgateStorage
import TollgateWorker

/// The deliveries of a user's events, for the support console: read in one transaction (one
/// snapshot: `REPEATABLE READ`) of the events, the cursors and the parked events, combined by
/// `EventDeliveries`, as on SQLite.
extension PostgresWorkerStorage {
  public func webhookDeliveries(userId: String, limit: Int) async throws -> [EventDeliveries] {
    try await database.transaction { connection in
      try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
      let events = try await connection.query(
        """
        SELECT \(unescaped: Self.eventColumns) FROM events WHERE user_id = \(userId)
        ORDER BY id DESC LIMIT \(Int64(max(0, limit)))
        """, logger: logger
      ).collect().map(Self.storedEvent)
      guard !events.isEmpty else { return [] }
      let cursors = try await connection.query(
        """
        SELECT endpoint, last_event_id, failing_event_id, failed_attempts, first_failed_at_ms
        FROM webhook_cursors ORDER BY endpoint
        """, logger: logger
      ).collect().map { row in
        let (endpoint, last, failing, attempts, since) = try row.decode((String, Int64, Int64?, Int64, Int64?).self)
        return WebhookCursorState(
          endpoint: endpoint, lastEventId: last, failingEventId: failing, failedAttempts: Int(attempts),
          firstFailedAtMs: since)
      }
      let ids = events.map(\.id)
      let parked = try await connection.query(
        """
        SELECT endpoint, event_id, attempts, first_failed_at_ms, parked_at_ms, last_error, status FROM webhook_parked
        WHERE event_id = ANY(\(ids)::bigint[])
        """, logger: logger
      ).collect().map { row in
        let (endpoint, eventId, attempts, firstFailedAtMs, parkedAtMs, lastError, status) = try row.decode(
          (String, Int64, Int64, Int64?, Int64, String?, String).self)
        return ParkedWebhookEvent(
          endpoint: endpoint, eventId: eventId, attempts: Int(attempts), firstFailedAtMs: firstFailedAtMs,
          parkedAtMs: parkedAtMs, lastError: lastError, queued: status == "queued")
      }
      return EventDeliveries.combine(events: events, cursors: cursors, parked: parked)
    }
  }
}
