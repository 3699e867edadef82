import TollgateCore
import TollgateSQLite
import TollgateStorage
import TollgateWorker

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension SQLiteWorkerStorage {
  /// The columns `event(_:)` reads, in its order; the event's UUID is column 9.
  static let eventColumns =
    "id, user_id, kind, store, store_subscription_id, product_id, state, at_ms, detail, event_uuid, details_json, "
    + "request_id"

  /// Decodes a row selected with `eventColumns`. Details that do not decode (written by a later
  /// version) read as none: the event itself is still delivered.
  static func event(_ row: Statement) -> WorkerEvent {
    let details = row.optionalString(at: 10).flatMap {
      try? JSONDecoder().decode(EventDetails.self, from: Data($0.utf8))
    }
    return WorkerEvent(
      userId: row.optionalString(at: 1), kind: row.string(at: 2),
      store: Store(rawValue: row.string(at: 3)) ?? .appStore,
      purchaseId: row.string(at: 4), productId: row.optionalString(at: 5),
      state: row.optionalString(at: 6).flatMap(SubscriptionState.init(rawValue:)), atMs: row.int64(at: 7),
      detail: row.optionalString(at: 8), details: details ?? EventDetails(), requestId: row.optionalString(at: 11))
  }

  /// Writes `events` inside the caller's transaction, each with a new UUID and the entitlements it
  /// touched as they stand after the change (`records`: each recomputed user's records before and
  /// after it).
  static func insert(_ db: Connection, events: [WorkerEvent], records: RecordChanges, nowMs: Int64) throws {
    guard !events.isEmpty else { return }
    let statement = try db.prepare(
      """
      INSERT INTO events (user_id, kind, store, store_subscription_id, product_id, state, at_ms, detail, event_uuid,
        details_json, request_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      """)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    for event in events {
      var details = event.details
      if let userId = event.userId, let change = records[userId] {
        details.entitlements = event.affectedEntitlements(before: change.before, after: change.after, nowMs: nowMs)
      }
      let json = String(decoding: try encoder.encode(details), as: UTF8.self)
      try statement.bind([
        DatabaseValue(event.userId), .text(event.kind), .text(event.store.rawValue), .text(event.purchaseId),
        DatabaseValue(event.productId), DatabaseValue(event.state?.rawValue), .integer(event.atMs),
        DatabaseValue(event.detail), .text(UUID().uuidString.lowercased()), .text(json), DatabaseValue(event.requestId),
      ])
      while try statement.step() {}
    }
  }
}
