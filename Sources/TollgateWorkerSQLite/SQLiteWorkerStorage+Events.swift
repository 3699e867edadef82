import TollgateCore
import TollgateStorage
import TollgateWorker

extension SQLiteWorkerStorage {
  /// Events after `id`, oldest first.
  public func events(after id: Int64, limit: Int) async throws -> [StoredEvent] {
    try await writer.read { db in
      try db.prepare(
        """
        SELECT id, user_id, kind, store, store_subscription_id, product_id, state, at_ms, detail FROM events
        WHERE id > ? ORDER BY id LIMIT ?
        """
      ).rows([.integer(id), .integer(Int64(limit))]) { row in
        StoredEvent(
          id: row.int64(at: 0),
          event: WorkerEvent(
            userId: row.optionalString(at: 1), kind: row.string(at: 2),
            store: Store(rawValue: row.string(at: 3)) ?? .appStore,
            purchaseId: row.string(at: 4), productId: row.optionalString(at: 5),
            state: row.optionalString(at: 6).flatMap(SubscriptionState.init(rawValue:)), atMs: row.int64(at: 7),
            detail: row.optionalString(at: 8)))
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

  public func advanceWebhookCursor(endpoint: String, to eventId: Int64, nowMs: Int64) async throws {
    try await fencedWrite { db in
      try db.execute(
        "UPDATE webhook_cursors SET last_event_id = MAX(last_event_id, ?), updated_at_ms = ? WHERE endpoint = ?",
        [.integer(eventId), .integer(nowMs), .text(endpoint)])
    }
  }

  // MARK: Events

  public func events(userId: String) async throws -> [WorkerEvent] {
    try await writer.read { db in
      try db.prepare(
        "SELECT user_id, kind, store, store_subscription_id, product_id, state, at_ms, detail FROM events WHERE user_id = ? ORDER BY id"
      ).rows([.text(userId)]) { row in
        WorkerEvent(
          userId: row.optionalString(at: 0), kind: row.string(at: 1),
          store: Store(rawValue: row.string(at: 2)) ?? .appStore,
          purchaseId: row.string(at: 3), productId: row.optionalString(at: 4),
          state: row.optionalString(at: 5).flatMap(SubscriptionState.init(rawValue:)), atMs: row.int64(at: 6),
          detail: row.optionalString(at: 7))
      }
    }
  }
}
