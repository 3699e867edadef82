extension Schema {
  static let jobLeases: Migrator.Body = { db in
    // Named leases for singleton jobs (issue 26): the daily sweep of each store, housekeeping and
    // the delivery to each webhook endpoint run on one worker at a time, whichever holds the job's
    // row. `generation` counts the changes of owner (the fencing token each of the job's writes
    // checks); a released lease keeps its row with an empty owner, so the count goes on.
    try db.execute(
      """
      CREATE TABLE job_leases (
        name TEXT PRIMARY KEY NOT NULL,
        owner_id TEXT NOT NULL,
        generation INTEGER NOT NULL,
        expires_at_ms INTEGER NOT NULL
      ) WITHOUT ROWID;
      """)
  }
}
