import PostgresNIO

extension PostgresSchema {
  /// SQLite's v20-feed-readers: where each running `serve` replica stands in the change feed, so
  /// that pruning keeps what a live replica has not read. One row per replica process run.
  static let feedReaders: [PostgresQuery] = [
    sql(
      """
      CREATE TABLE feed_readers (
        reader_id TEXT PRIMARY KEY,
        seq BIGINT NOT NULL,
        seen_at_ms BIGINT NOT NULL
      )
      """)
  ]
}
