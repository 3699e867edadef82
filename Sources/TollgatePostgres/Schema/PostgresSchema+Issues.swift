import PostgresNIO

extension PostgresSchema {
  /// SQLite's v12-webhook-parking: failed attempts per endpoint, and the events set aside.
  static let webhookParking: [PostgresQuery] = [
    sql("ALTER TABLE webhook_cursors ADD COLUMN failing_event_id BIGINT"),
    sql("ALTER TABLE webhook_cursors ADD COLUMN failed_attempts BIGINT NOT NULL DEFAULT 0"),
    sql("ALTER TABLE webhook_cursors ADD COLUMN first_failed_at_ms BIGINT"),
    sql(
      """
      CREATE TABLE webhook_parked (
        endpoint TEXT NOT NULL,
        event_id BIGINT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('parked', 'queued')),
        attempts BIGINT NOT NULL,
        first_failed_at_ms BIGINT,
        parked_at_ms BIGINT NOT NULL,
        next_attempt_at_ms BIGINT NOT NULL DEFAULT 0,
        last_error TEXT,
        PRIMARY KEY (endpoint, event_id)
      )
      """),
    sql("CREATE INDEX webhook_parked_event ON webhook_parked (event_id)"),
  ]

  /// SQLite's v13-event-details: each event's UUID (given to the events written before, too) and
  /// its details as JSON.
  static let eventDetails: [PostgresQuery] = [
    sql("ALTER TABLE events ADD COLUMN event_uuid TEXT"),
    sql("ALTER TABLE events ADD COLUMN details_json TEXT"),
    sql("UPDATE events SET event_uuid = gen_random_uuid()::text WHERE event_uuid IS NULL"),
    sql("CREATE UNIQUE INDEX events_uuid ON events (event_uuid)"),
  ]

  /// SQLite's v14-inbox-submission-caller: pending submissions counted per (caller, user), signed
  /// ones apart. The pending purchases stored before get their caller from their JSON payload
  /// (those whose payload is not a JSON object keep ''), as on SQLite.
  static let inboxSubmissionCaller: [PostgresQuery] = [
    sql("ALTER TABLE inbox ADD COLUMN caller TEXT NOT NULL DEFAULT ''"),
    sql("ALTER TABLE inbox ADD COLUMN signed BIGINT NOT NULL DEFAULT 0"),
    sql(
      """
      UPDATE inbox SET caller = COALESCE(convert_from(payload, 'UTF8')::jsonb ->> 'caller', '')
      WHERE kind = 'purchase' AND status IN ('pending', 'processing')
        AND convert_from(payload, 'UTF8') ~ '^\\s*\\{'
      """),
    sql("DROP INDEX IF EXISTS inbox_pending_by_user"),
    sql(
      """
      CREATE INDEX inbox_pending_by_caller ON inbox (caller, user_id, signed)
      WHERE kind = 'purchase' AND status IN ('pending', 'processing')
      """),
  ]

  /// SQLite's v15-inbox-claim-token: fenced inbox claims (0: not claimed).
  static let inboxClaimToken: [PostgresQuery] = [
    sql("ALTER TABLE inbox ADD COLUMN claim_token BIGINT NOT NULL DEFAULT 0")
  ]

  /// SQLite's v16-subscription-version: conditional apply and claimed checks (the chains stored
  /// before start at version 1).
  static let subscriptionVersion: [PostgresQuery] = [
    sql("ALTER TABLE subscriptions ADD COLUMN version BIGINT NOT NULL DEFAULT 0"),
    sql("UPDATE subscriptions SET version = 1"),
    sql("ALTER TABLE subscriptions ADD COLUMN check_claims BIGINT NOT NULL DEFAULT 0"),
    sql("ALTER TABLE subscriptions ADD COLUMN check_token BIGINT"),
  ]

  /// SQLite's v17-job-leases: named leases for singleton jobs.
  static let jobLeases: [PostgresQuery] = [
    sql(
      """
      CREATE TABLE job_leases (
        name TEXT PRIMARY KEY NOT NULL,
        owner_id TEXT NOT NULL,
        generation BIGINT NOT NULL,
        expires_at_ms BIGINT NOT NULL
      )
      """)
  ]

  /// SQLite's v18-store-health: which stores are failing now and since when. One row per store.
  static let storeHealth: [PostgresQuery] = [
    sql(
      """
      CREATE TABLE store_health (
        store TEXT PRIMARY KEY,
        failing_since_ms BIGINT NOT NULL,
        last_failure_at_ms BIGINT NOT NULL
      )
      """)
  ]

  /// SQLite's v19-store-call-budgets: the calls each store's budget has granted in its current
  /// window, shared by every worker. One row per store.
  static let storeCallBudgets: [PostgresQuery] = [
    sql(
      """
      CREATE TABLE store_call_budgets (
        store TEXT PRIMARY KEY,
        window_start_ms BIGINT NOT NULL,
        used BIGINT NOT NULL
      )
      """)
  ]
}
