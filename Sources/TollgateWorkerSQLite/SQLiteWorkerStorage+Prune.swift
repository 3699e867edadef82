import TollgateStorage
import TollgateWorker

extension SQLiteWorkerStorage {
  public func prune(_ plan: PrunePlan) async throws -> PruneCounts {
    try await fencedWrite { db in
      try Self.checkJobLease(db, plan.lease)
      var counts = PruneCounts()
      try db.execute(
        """
        DELETE FROM inbox WHERE status IN ('verified', 'rejected', 'failed')
          AND COALESCE(completed_at_ms, received_at_ms) < ?
        """, [.integer(plan.finishedInboxBeforeMs)])
      counts.inbox = db.changes
      try db.execute(
        "DELETE FROM feed_readers WHERE seen_at_ms < ?", [.integer(plan.changeFeedReadersSeenSinceMs)])
      counts.feedReaders = db.changes
      try db.execute(
        """
        DELETE FROM change_feed
        WHERE seq < (SELECT MAX(seq) FROM change_feed)
          AND seq < COALESCE((SELECT MIN(seq) FROM feed_readers), \(Int64.max))
          AND ((at_ms < ?
                AND seq < COALESCE((SELECT seq FROM change_feed WHERE at_ms >= ? ORDER BY seq LIMIT 1), \(Int64.max)))
            OR seq <= COALESCE((SELECT MAX(seq) FROM change_feed WHERE reason = 'erased' AND at_ms < ?), 0))
        """,
        [
          .integer(plan.changeFeedBeforeMs), .integer(plan.changeFeedBeforeMs),
          .integer(plan.erasureMarkersBeforeMs ?? .min),
        ])
      counts.changeFeed = db.changes
      if let delivered = plan.eventsDeliveredThroughId {
        try db.execute(
          "DELETE FROM events WHERE at_ms < ? AND id <= ? AND \(Self.notParkedNorNewest)",
          [.integer(plan.eventsBeforeMs), .integer(delivered)])
      } else {
        try db.execute(
          "DELETE FROM events WHERE at_ms < ? AND \(Self.notParkedNorNewest)", [.integer(plan.eventsBeforeMs)])
      }
      counts.events = db.changes
      return counts
    }
  }

  // The change feed goes as a prefix (`PrunePlan.changeFeedBeforeMs`): entries below the first
  // one young enough to keep (writers' clocks differ, so `at_ms` is not in `seq` order), below
  // the newest, and below the lowest position of the readers still seen (the others' rows went
  // first), so the entry at a live reader's position, and all after it, stay. A GDPR erase's
  // entry old enough (`erasureMarkersBeforeMs`) takes every entry before it along, in those bounds.

  /// A parked webhook event stays until it is delivered again (`tollgate webhooks redeliver`).
  /// The newest event always stays: `events.id` is a rowid, so deleting the newest would let the
  /// next event reuse an id at or below a webhook cursor, and that endpoint would never be sent
  /// it (ids are handed out once, in commit order: `WorkerStorage.events(after:limit:)`).
  private static let notParkedNorNewest =
    "id NOT IN (SELECT event_id FROM webhook_parked) AND id < (SELECT MAX(id) FROM events)"
}
