import TollgateSQLite
import TollgateStorage
import TollgateWorker

/// Webhook delivery's bookkeeping beyond the cursors: failed attempts at the event after each
/// endpoint's cursor (on its `webhook_cursors` row) and parked events (`webhook_parked`).
extension SQLiteWorkerStorage {
  public func recordWebhookFailure(
    endpoint: String, eventId: Int64, error: String, limit: WebhookRetryLimit, nowMs: Int64, lease: JobLease?
  ) async throws -> WebhookFailureRecord {
    try await fencedWrite { db in
      try Self.checkJobLease(db, lease)
      let previous = try db.prepare(
        "SELECT failing_event_id, failed_attempts, first_failed_at_ms FROM webhook_cursors WHERE endpoint = ?"
      ).rows([.text(endpoint)]) { row in
        (eventId: row.optionalInt64(at: 0), attempts: Int(row.int64(at: 1)), since: row.optionalInt64(at: 2))
      }.first
      var record = WebhookFailureRecord(attempts: 1, firstFailedAtMs: nowMs, parked: false)
      if let previous, previous.eventId == eventId {
        record.attempts = previous.attempts + 1
        record.firstFailedAtMs = previous.since ?? nowMs
      }
      record.parked = limit.isReached(attempts: record.attempts, firstFailedAtMs: record.firstFailedAtMs, nowMs: nowMs)
      if record.parked {
        try db.execute(
          """
          INSERT INTO webhook_parked (endpoint, event_id, status, attempts, first_failed_at_ms, parked_at_ms, last_error)
          VALUES (?, ?, 'parked', ?, ?, ?, ?)
          ON CONFLICT (endpoint, event_id) DO UPDATE SET status = 'parked', attempts = excluded.attempts,
            first_failed_at_ms = excluded.first_failed_at_ms, parked_at_ms = excluded.parked_at_ms,
            last_error = excluded.last_error
          """,
          [
            .text(endpoint), .integer(eventId), .integer(Int64(record.attempts)), .integer(record.firstFailedAtMs),
            .integer(nowMs), .text(error),
          ])
        try db.execute(
          """
          UPDATE webhook_cursors SET last_event_id = MAX(last_event_id, ?), failing_event_id = NULL,
            failed_attempts = 0, first_failed_at_ms = NULL, updated_at_ms = ?
          WHERE endpoint = ?
          """, [.integer(eventId), .integer(nowMs), .text(endpoint)])
      } else {
        try db.execute(
          """
          UPDATE webhook_cursors SET failing_event_id = ?, failed_attempts = ?, first_failed_at_ms = ?,
            updated_at_ms = ?
          WHERE endpoint = ?
          """,
          [
            .integer(eventId), .integer(Int64(record.attempts)), .integer(record.firstFailedAtMs), .integer(nowMs),
            .text(endpoint),
          ])
      }
      return record
    }
  }

  public func parkedWebhookEvents(endpoint: String?) async throws -> [ParkedWebhookEvent] {
    try await writer.read { db in
      try db.prepare(
        """
        SELECT \(Self.parkedColumns) FROM webhook_parked
        WHERE ?1 IS NULL OR endpoint = ?1 ORDER BY event_id, endpoint
        """
      ).rows([endpoint.map { .text($0) } ?? .null], Self.parked)
    }
  }

  public func requestWebhookRedelivery(eventIds: [Int64]?, endpoint: String?) async throws -> Int {
    try await fencedWrite { db in
      var sql = """
        UPDATE webhook_parked SET status = 'queued', attempts = 0, first_failed_at_ms = NULL, next_attempt_at_ms = 0
        WHERE (?1 IS NULL OR endpoint = ?1)
        """
      var arguments: [DatabaseValue] = [endpoint.map { .text($0) } ?? .null]
      if let eventIds {
        guard !eventIds.isEmpty else { return 0 }
        sql += " AND event_id IN (" + Array(repeating: "?", count: eventIds.count).joined(separator: ", ") + ")"
        arguments += eventIds.map { .integer($0) }
      }
      try db.execute(sql, arguments)
      return db.changes
    }
  }

  public func dueWebhookRedeliveries(endpoint: String, nowMs: Int64, limit: Int) async throws -> [ParkedWebhookEvent] {
    try await writer.read { db in
      try db.prepare(
        """
        SELECT \(Self.parkedColumns) FROM webhook_parked
        WHERE endpoint = ? AND status = 'queued' AND next_attempt_at_ms <= ? ORDER BY event_id LIMIT ?
        """
      ).rows([.text(endpoint), .integer(nowMs), .integer(Int64(limit))], Self.parked)
    }
  }

  public func finishWebhookRedelivery(
    endpoint: String, eventId: Int64, error: String?, limit: WebhookRetryLimit, retryAtMs: Int64, nowMs: Int64,
    lease: JobLease?
  ) async throws {
    try await fencedWrite { db in
      try Self.checkJobLease(db, lease)
      guard let error else {
        try db.execute(
          "DELETE FROM webhook_parked WHERE endpoint = ? AND event_id = ?", [.text(endpoint), .integer(eventId)])
        return
      }
      let row = try db.prepare(
        "SELECT attempts, first_failed_at_ms FROM webhook_parked WHERE endpoint = ? AND event_id = ? AND status = 'queued'"
      ).rows([.text(endpoint), .integer(eventId)]) { (Int($0.int64(at: 0)), $0.optionalInt64(at: 1) ?? nowMs) }.first
      guard let (previousAttempts, since) = row else { return }
      let attempts = previousAttempts + 1
      let parkAgain = limit.isReached(attempts: attempts, firstFailedAtMs: since, nowMs: nowMs)
      try db.execute(
        """
        UPDATE webhook_parked SET status = ?, attempts = ?, first_failed_at_ms = ?, next_attempt_at_ms = ?,
          last_error = ?, parked_at_ms = CASE WHEN ? THEN ? ELSE parked_at_ms END
        WHERE endpoint = ? AND event_id = ?
        """,
        [
          .text(parkAgain ? "parked" : "queued"), .integer(Int64(attempts)), .integer(since), .integer(retryAtMs),
          .text(error), .integer(parkAgain ? 1 : 0), .integer(nowMs), .text(endpoint), .integer(eventId),
        ])
    }
  }

  public func webhookBacklog(endpoint: String, kinds: [String]?) async throws -> WebhookBacklog {
    try await writer.read { db in
      var backlog = WebhookBacklog()
      let cursor = try db.prepare("SELECT last_event_id FROM webhook_cursors WHERE endpoint = ?").rows([
        .text(endpoint)
      ]) { $0.int64(at: 0) }.first
      // An endpoint that filters every kind out takes nothing from the stream.
      if let cursor, kinds?.isEmpty != true {
        var sql = "SELECT COUNT(*), MIN(at_ms) FROM events WHERE id > ? AND user_id IS NOT NULL"
        var arguments: [DatabaseValue] = [.integer(cursor)]
        if let kinds {
          sql += " AND kind IN (" + Array(repeating: "?", count: kinds.count).joined(separator: ", ") + ")"
          arguments += kinds.map { .text($0) }
        }
        let (count, oldest) =
          try db.prepare(sql).rows(arguments) { (Int($0.int64(at: 0)), $0.optionalInt64(at: 1)) }
          .first ?? (0, nil)
        backlog.undelivered = count
        backlog.oldestUndeliveredAtMs = oldest
      }
      let parked = try db.prepare(
        """
        SELECT p.status, COUNT(*), MIN(e.at_ms) FROM webhook_parked p LEFT JOIN events e ON e.id = p.event_id
        WHERE p.endpoint = ? GROUP BY p.status
        """
      ).rows([.text(endpoint)]) { ($0.string(at: 0), Int($0.int64(at: 1)), $0.optionalInt64(at: 2)) }
      for (status, count, oldest) in parked {
        if status == "parked" {
          backlog.parked = count
        } else {
          backlog.undelivered += count
          if let oldest { backlog.oldestUndeliveredAtMs = min(backlog.oldestUndeliveredAtMs ?? oldest, oldest) }
        }
      }
      return backlog
    }
  }

  private static let parkedColumns =
    "endpoint, event_id, attempts, first_failed_at_ms, parked_at_ms, last_error, status"

  private static func parked(_ row: Statement) -> ParkedWebhookEvent {
    ParkedWebhookEvent(
      endpoint: row.string(at: 0), eventId: row.int64(at: 1), attempts: Int(row.int64(at: 2)),
      firstFailedAtMs: row.optionalInt64(at: 3), parkedAtMs: row.int64(at: 4), lastError: row.optionalString(at: 5),
      queued: row.string(at: 6) == "queued")
  }
}
