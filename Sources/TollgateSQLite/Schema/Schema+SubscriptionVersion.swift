extension Schema {
  static let subscriptionVersion: Migrator.Body = { db in
    // Conditional apply and claimed checks (issue 26). `version` counts the writes of a chain: a
    // verification is written only if the chain is still at the version it was computed from (0:
    // not stored; the chains stored before start at 1). A scheduled check is claimed by one worker
    // at a time: the claim moves `next_check_at_ms` to the end of its lease and stores
    // `check_token` (NULL: not claimed), a new value of `check_claims` (how many claims the chain's
    // checks have had), which the check's postponement must still find.
    try db.execute(
      """
      ALTER TABLE subscriptions ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
      UPDATE subscriptions SET version = 1;
      ALTER TABLE subscriptions ADD COLUMN check_claims INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE subscriptions ADD COLUMN check_token INTEGER;
      """)
  }
}
