import TollgateCore
import TollgateStorage
import TollgateWorker

extension SQLiteWorkerStorage {
  /// Events after `id`, oldest first.
  public func events(after id: Int64, limit: Int) async throws -> [StoredEvent] {
    try await writer.read { db in
      try db.prepare("SELECT \(Self.eventColumns) FROM events WHERE id > ? ORDER BY id LIMIT ?").rows([
        .integer(id), .integer(Int64(limit)),
      ]) { row in
        StoredEvent(id: row.int64(at: 0), eventId: row.optionalString(at: 9), event: Self.event(row))
      }
    }
  }

  /// The last event an endpoint acknowledged; a new endpoint starts after the newest event, so it
  /// receives what happens from now on rather than the whole history.
  public func webhookCursor(endpoint: String, nowMs: Int64) async throws -> Int64 {
    try await fencedWrite { db in
      let existing = try db.prepare("SELECT last_event_id FROM webhook_cursors WHERE endpoint = ?").rows([
        .text(endpoint)
      ]) {
        $0.int64(at: 0)
      }
      if let cursor = existing.first { return cursor }
      let newest = try db.prepare("SELECT COALESCE(MAX(id), 0) FROM events").rows([]) { $0.int64(at: 0) }.first ?? 0
      try db.execute(
        "INSERT INTO webhook_cursors (endpoint, last_event_id, updated_at_ms) VALUES (?, ?, ?)",
        [.text(endpoint), .integer(newest), .integer(nowMs)])
      return newest
    }
  }

  public func advanceWebhookCursor(endpoint: String, to eventId: Int64, nowMs: Int64, lease: JobLease?) async throws {
    try await fencedWrite { db in
      try Self.checkJobLease(db, lease)
      try db.execute(
        "UPDATE webhook_cursors SET last_event_id = MAX(last_event_id, ?), updated_at_ms = ? WHERE endpoint = ?",
        [.integer(eventId), .integer(nowMs), .text(endpoint)])
    }
  }

  // MARK: Events

  public func events(userId: String) async throws -> [WorkerEvent] {
    try await writer.read { db in
      try db.prepare("SELECT \(Self.eventColumns) FROM events WHERE user_id = ? ORDER BY id").rows([.text(userId)]) {
        Self.event($0)
      }
    }
  }
}
