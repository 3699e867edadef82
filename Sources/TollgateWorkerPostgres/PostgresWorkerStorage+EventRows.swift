import Logging
import PostgresNIO
import TollgateCore
import TollgatePostgres
import TollgateStorage
import TollgateWorker

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The `events` table's rows: how an event is written (by `apply` and the grants) and read back.
/// Every writer appends under the transaction-scoped lock `PostgresLocks.events`, taken at the
/// start of its transaction (`fencedTransaction(appendsToFeeds: true)`), so ids are handed out in
/// commit order: what `WorkerStorage.events(after:limit:)` promises its readers.
extension PostgresWorkerStorage {
  /// The columns `event(_:)` reads, in its order; the event's UUID is column 9.
  static let eventColumns =
    "id, user_id, kind, store, store_subscription_id, product_id, state, at_ms, detail, event_uuid, details_json, "
    + "request_id"

  /// A row selected with `eventColumns`, with its id and UUID. Details that do not decode (written
  /// by a later version) read as none: the event itself is still delivered, as on SQLite.
  static func storedEvent(_ row: PostgresRow) throws -> StoredEvent {
    let (id, userId, kind, store, purchaseId, productId, state, atMs, detail, uuid, detailsJSON, requestId) =
      try row.decode(
        (Int64, String?, String, String, String, String?, String?, Int64, String?, String?, String?, String?).self)
    let details = detailsJSON.flatMap { try? JSONDecoder().decode(EventDetails.self, from: Data($0.utf8)) }
    let event = WorkerEvent(
      userId: userId, kind: kind, store: Store(rawValue: store) ?? .appStore, purchaseId: purchaseId,
      productId: productId, state: state.flatMap(SubscriptionState.init(rawValue:)), atMs: atMs, detail: detail,
      details: details ?? EventDetails(), requestId: requestId)
    return StoredEvent(id: id, eventId: uuid, event: event)
  }

  /// Writes `events` inside the caller's transaction, each with a new UUID and the entitlements it
  /// touched as they stand after the change (`records`: each recomputed user's records before and
  /// after it). The caller took `PostgresLocks.events` at the start of its transaction
  /// (`fencedTransaction(appendsToFeeds: true)`); this takes no lock.
  static func insert(
    _ connection: PostgresSession, events: [WorkerEvent], records: RecordChanges, nowMs: Int64, logger: Logger
  ) async throws {
    guard !events.isEmpty else { return }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    for event in events {
      var details = event.details
      if let userId = event.userId, let change = records[userId] {
        details.entitlements = event.affectedEntitlements(before: change.before, after: change.after, nowMs: nowMs)
      }
      let json = String(decoding: try encoder.encode(details), as: UTF8.self)
      let uuid = UUID().uuidString.lowercased()
      try await connection.query(
        """
        INSERT INTO events (user_id, kind, store, store_subscription_id, product_id, state, at_ms, detail, event_uuid,
          details_json, request_id)
        VALUES (\(event.userId), \(event.kind), \(event.store.rawValue), \(event.purchaseId), \(event.productId),
          \(event.state?.rawValue), \(event.atMs), \(event.detail), \(uuid), \(json), \(event.requestId))
        """, logger: logger)
    }
  }
}
