import PostgresNIO
import TollgateStorage
import TollgateWorker

extension PostgresWorkerStorage {
  /// Deletes what `plan` says is past its use, in one transaction fenced by the worker lease and by
  /// housekeeping's job lease. The newest change-feed entry and the newest event always stay, as on
  /// SQLite: identity columns never hand an id out twice anyway, but a follower compares the
  /// newest entry, and both databases keep the same rows.
  public func prune(_ plan: PrunePlan) async throws -> PruneCounts {
    try await fencedTransaction { connection in
      try await Self.checkJobLease(connection, plan.lease, logger: logger)
      var counts = PruneCounts()
      counts.inbox = try await Self.count(
        connection.query(
          """
          WITH gone AS (
            DELETE FROM inbox WHERE status IN ('verified', 'rejected', 'failed')
              AND COALESCE(completed_at_ms, received_at_ms) < \(plan.finishedInboxBeforeMs)
            RETURNING 1)
          SELECT COUNT(*) FROM gone
          """, logger: logger
        ).collect())
      // Readers not seen lately go first; the feed goes as a prefix, as on SQLite: below the
      // first entry young enough to keep (writers' clocks differ: `at_ms` is not in `seq` order),
      // below the newest, and below the lowest position of the readers still seen.
      counts.feedReaders = try await Self.count(
        connection.query(
          """
          WITH gone AS (
            DELETE FROM feed_readers WHERE seen_at_ms < \(plan.changeFeedReadersSeenSinceMs) RETURNING 1)
          SELECT COUNT(*) FROM gone
          """, logger: logger
        ).collect())
      let before = plan.changeFeedBeforeMs
      // A GDPR erase's entry old enough takes every entry before it along, in the same bounds.
      let erasures = plan.erasureMarkersBeforeMs ?? Int64.min
      counts.changeFeed = try await Self.count(
        connection.query(
          """
          WITH gone AS (
            DELETE FROM change_feed
            WHERE seq < (SELECT MAX(seq) FROM change_feed)
              AND seq < COALESCE((SELECT MIN(seq) FROM feed_readers), \(Int64.max))
              AND ((at_ms < \(before) AND seq < COALESCE(
                    (SELECT seq FROM change_feed WHERE at_ms >= \(before) ORDER BY seq LIMIT 1), \(Int64.max)))
                OR seq <= COALESCE(
                  (SELECT MAX(seq) FROM change_feed WHERE reason = 'erased' AND at_ms < \(erasures)), 0))
            RETURNING 1)
          SELECT COUNT(*) FROM gone
          """, logger: logger
        ).collect())
      // A parked webhook event stays until it is delivered again (`tollgate webhooks redeliver`).
      // With no endpoint configured (`eventsDeliveredThroughId` nil) the id bound is the largest.
      let delivered = plan.eventsDeliveredThroughId ?? Int64.max
      counts.events = try await Self.count(
        connection.query(
          """
          WITH gone AS (
            DELETE FROM events
            WHERE at_ms < \(plan.eventsBeforeMs) AND id <= \(delivered)
              AND id NOT IN (SELECT event_id FROM webhook_parked) AND id < (SELECT MAX(id) FROM events)
            RETURNING 1)
          SELECT COUNT(*) FROM gone
          """, logger: logger
        ).collect())
      return counts
    }
  }
}
