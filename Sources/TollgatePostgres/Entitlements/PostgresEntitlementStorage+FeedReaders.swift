import PostgresNIO
import TollgateStorage

extension PostgresEntitlementStorage {
  /// One upsert of the reader's row in `feed_readers`. It takes no feed lock and sends no
  /// notification: the feed did not move.
  public func recordFeedPosition(readerId: String, seq: Int64, nowMs: Int64) async throws {
    _ = try await database.query(
      """
      INSERT INTO feed_readers (reader_id, seq, seen_at_ms) VALUES (\(readerId), \(seq), \(nowMs))
      ON CONFLICT (reader_id) DO UPDATE SET seq = EXCLUDED.seq, seen_at_ms = EXCLUDED.seen_at_ms
      """)
  }

  public func removeFeedReader(readerId: String) async throws {
    _ = try await database.query("DELETE FROM feed_readers WHERE reader_id = \(readerId)")
  }
}
