extension Schema {
  static let storeHealth: Migrator.Body = { db in
    // Store health shared through the database (issue 26): which stores are failing now and since
    // when, so every worker on the database evaluates a chain under the same outage policy. One
    // row per failing store; the first answer after the outage deletes it.
    try db.execute(
      """
      CREATE TABLE store_health (
        store TEXT PRIMARY KEY,
        failing_since_ms INTEGER NOT NULL,
        last_failure_at_ms INTEGER NOT NULL
      ) WITHOUT ROWID;
      """)
  }
}
