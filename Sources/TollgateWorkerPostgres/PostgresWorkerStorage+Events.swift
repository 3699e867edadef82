import PostgresNIO
import TollgateCore
import TollgatePostgres
import TollgateStorage
import TollgateWorker

extension PostgresWorkerStorage {
  // MARK: Events

  /// Events after `id`, oldest first. Ids become visible in commit order (every append holds
  /// `PostgresLocks.events` until its commit), so a reader that follows this from its last
  /// position never finds an event appear at or below it later.
  public func events(after id: Int64, limit: Int) async throws -> [StoredEvent] {
    let rows = try await database.query(
      "SELECT \(unescaped: Self.eventColumns) FROM events WHERE id > \(id) ORDER BY id LIMIT \(Int64(limit))")
    return try rows.map(Self.storedEvent)
  }

  /// The user's events, oldest first.
  public func events(userId: String) async throws -> [WorkerEvent] {
    let rows = try await database.query(
      "SELECT \(unescaped: Self.eventColumns) FROM events WHERE user_id = \(userId) ORDER BY id")
    return try rows.map { try Self.storedEvent($0).event }
  }

  // MARK: Webhook cursors

  /// The last event an endpoint acknowledged; a new endpoint starts after the newest event, so it
  /// receives what happens from now on rather than the whole history. Two workers asking at once
  /// for a new endpoint both get the one cursor the first of them wrote.
  public func webhookCursor(endpoint: String, nowMs: Int64) async throws -> Int64 {
    try await fencedTransaction { connection in
      // An event appended by a transaction still open gets an id above the committed newest (ids
      // are handed out in commit order), so the new cursor does not skip it.
      try await connection.query(
        """
        INSERT INTO webhook_cursors (endpoint, last_event_id, updated_at_ms)
        SELECT \(endpoint), COALESCE(MAX(id), 0), \(nowMs) FROM events
        ON CONFLICT (endpoint) DO NOTHING
        """, logger: logger)
      let rows = try await connection.query(
        "SELECT last_event_id FROM webhook_cursors WHERE endpoint = \(endpoint)", logger: logger
      ).collect()
      guard let row = rows.first else {
        throw PostgresStorageError.undecodable("webhook cursor of an endpoint vanished while it was written")
      }
      return try row.decode(Int64.self)
    }
  }

  /// Moves the cursor up to `eventId`, never back; fenced by the worker lease and by `lease`.
  public func advanceWebhookCursor(endpoint: String, to eventId: Int64, nowMs: Int64, lease: JobLease?) async throws {
    try await fencedTransaction { connection in
      try await Self.checkJobLease(connection, lease, logger: logger)
      try await connection.query(
        """
        UPDATE webhook_cursors SET last_event_id = GREATEST(last_event_id, \(eventId)), updated_at_ms = \(nowMs)
        WHERE endpoint = \(endpoint)
        """, logger: logger)
    }
  }
}
