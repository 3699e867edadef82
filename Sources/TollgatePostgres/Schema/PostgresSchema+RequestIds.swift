import PostgresNIO

extension PostgresSchema {
  /// SQLite's v22-request-ids (issue 29): `inbox.request_id` and `events.request_id`, nullable.
  static let requestIds: [PostgresQuery] = [
    sql("ALTER TABLE inbox ADD COLUMN request_id TEXT"),
    sql("ALTER TABLE events ADD COLUMN request_id TEXT"),
  ]
}
