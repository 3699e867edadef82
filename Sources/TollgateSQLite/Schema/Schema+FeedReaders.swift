extension Schema {
  static let feedReaders: Migrator.Body = { db in
    // Where each running `serve` replica stands in the change feed (issue 27), so that pruning
    // never deletes an entry a live replica has not read: one row per replica process run, its
    // last applied sequence and when it last said so (`EntitlementStorage.recordFeedPosition`).
    try db.execute(
      """
      CREATE TABLE feed_readers (
        reader_id TEXT PRIMARY KEY,
        seq INTEGER NOT NULL,
        seen_at_ms INTEGER NOT NULL
      ) WITHOUT ROWID;
      """)
  }
}
