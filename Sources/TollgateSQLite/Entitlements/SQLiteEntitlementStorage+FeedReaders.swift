import TollgateStorage

extension SQLiteEntitlementStorage {
  /// One upsert of the reader's row in `feed_readers`, on the writer: a commit like any other.
  public func recordFeedPosition(readerId: String, seq: Int64, nowMs: Int64) async throws {
    try await writer.write { db in
      try db.execute(
        """
        INSERT INTO feed_readers (reader_id, seq, seen_at_ms) VALUES (?, ?, ?)
        ON CONFLICT (reader_id) DO UPDATE SET seq = excluded.seq, seen_at_ms = excluded.seen_at_ms
        """, [.text(readerId), .integer(seq), .integer(nowMs)])
    }
  }

  public func removeFeedReader(readerId: String) async throws {
    try await writer.write { db in
      try db.execute("DELETE FROM feed_readers WHERE reader_id = ?", [.text(readerId)])
    }
  }
}
