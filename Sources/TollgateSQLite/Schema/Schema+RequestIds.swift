extension Schema {
  /// v22-request-ids (issue 29): the id of the request that made an inbox item (a submission's
  /// `x-request-id`, or one made up by `serve`; a notification's, at the worker's listener), and
  /// of the inbox item's request each event it caused carries to its webhooks
  /// (`Tollgate-Request-Id`). NULL for rows written before, and for events no request caused (a
  /// scheduled check, a grant).
  static let requestIds: Migrator.Body = { db in
    try db.execute(
      """
      ALTER TABLE inbox ADD COLUMN request_id TEXT;
      ALTER TABLE events ADD COLUMN request_id TEXT;
      """)
  }
}
