import TollgateSQLite
import TollgateStorage
import TollgateWorker

/// The deliveries of a user's events, for the support console: read in one read transaction (one
/// snapshot of the events, the cursors and the parked events), combined by `EventDeliveries`.
extension SQLiteWorkerStorage {
  public func webhookDeliveries(userId: String, limit: Int) async throws -> [EventDeliveries] {
    try await writer.read { db in
      try db.execute("BEGIN")
      defer { try? db.execute("COMMIT") }
      let events = try db.prepare(
        "SELECT \(Self.eventColumns) FROM events WHERE user_id = ? ORDER BY id DESC LIMIT ?"
      ).rows([.text(userId), .integer(Int64(max(0, limit)))]) { row in
        StoredEvent(id: row.int64(at: 0), eventId: row.optionalString(at: 9), event: Self.event(row))
      }
      guard !events.isEmpty else { return [] }
      let cursors = try db.prepare(
        """
        SELECT endpoint, last_event_id, failing_event_id, failed_attempts, first_failed_at_ms
        FROM webhook_cursors ORDER BY endpoint
        """
      ).rows { row in
        WebhookCursorState(
          endpoint: row.string(at: 0), lastEventId: row.int64(at: 1), failingEventId: row.optionalInt64(at: 2),
          failedAttempts: Int(row.int64(at: 3)), firstFailedAtMs: row.optionalInt64(at: 4))
      }
      let ids = events.map(\.id)
      let parked = try db.prepare(
        """
        SELECT endpoint, event_id, attempts, first_failed_at_ms, parked_at_ms, last_error, status FROM webhook_parked
        WHERE event_id IN (\(Array(repeating: "?", count: ids.count).joined(separator: ", ")))
        """
      ).rows(ids.map { .integer($0) }) { row in
        ParkedWebhookEvent(
          endpoint: row.string(at: 0), eventId: row.int64(at: 1), attempts: Int(row.int64(at: 2)),
          firstFailedAtMs: row.optionalInt64(at: 3), parkedAtMs: row.int64(at: 4), lastError: row.optionalString(at: 5),
          queued: row.string(at: 6) == "queued")
      }
      return EventDeliveries.combine(events: events, cursors: cursors, parked: parked)
    }
  }
}
