/// Tollgate's database schema as versioned migrations. Append new migrations; never edit one that
/// has shipped.
public enum Schema {
  public static var migrator: Migrator {
    var migrator = Migrator()
    migrator.register("v1-core", v1)
    migrator.register("v2-worker", v2)
    migrator.register("v3-webhooks", v3)
    migrator.register("v4-catalog", v4)
    migrator.register("v5-database-id", v5)
    migrator.register("v6-worker-lease", v6)
    migrator.register("v7-entitlement-reason", v7)
    migrator.register("v8-entitlement-replaces", v8)
    migrator.register("v9-store-user-id", v9)
    migrator.register("v10-inbox-pending-by-user", v10)
    migrator.register("v11-worker-lease-generation", v11)
    migrator.register("v12-webhook-parking", webhookParking)
    migrator.register("v13-event-details", eventDetails)
    migrator.register("v14-inbox-submission-caller", inboxSubmissionCaller)
    migrator.register("v15-inbox-claim-token", inboxClaimToken)
    migrator.register("v16-subscription-version", subscriptionVersion)
    migrator.register("v17-job-leases", jobLeases)
    migrator.register("v18-store-health", storeHealth)
    migrator.register("v19-store-call-budgets", storeCallBudgets)
    migrator.register("v20-feed-readers", feedReaders)
    migrator.register("v21-support", support)
    migrator.register("v22-request-ids", requestIds)
    return migrator
  }

  static let v1: Migrator.Body = { db in
    try db.execute(
      """
      CREATE TABLE users (
        user_id TEXT PRIMARY KEY NOT NULL,
        created_at_ms INTEGER NOT NULL
      );

      -- One store purchase chain: Apple originalTransactionId, Google purchaseToken, Amazon receiptId.
      CREATE TABLE subscriptions (
        id INTEGER PRIMARY KEY,
        store TEXT NOT NULL,
        store_subscription_id TEXT NOT NULL,
        app_id TEXT NOT NULL,
        user_id TEXT REFERENCES users(user_id),
        product_id TEXT NOT NULL,
        environment TEXT NOT NULL,
        state TEXT NOT NULL,
        will_renew INTEGER NOT NULL DEFAULT 0,
        purchased_at_ms INTEGER,
        expires_at_ms INTEGER,
        access_ends_at_ms INTEGER,
        verified_at_ms INTEGER NOT NULL,
        updated_at_ms INTEGER NOT NULL,
        UNIQUE (store, store_subscription_id)
      );
      CREATE INDEX subscriptions_user ON subscriptions(user_id);

      -- Each verified store transaction (Apple transactionId, Google orderId, Amazon receiptId).
      CREATE TABLE transactions (
        id INTEGER PRIMARY KEY,
        subscription_id INTEGER NOT NULL REFERENCES subscriptions(id) ON DELETE CASCADE,
        store TEXT NOT NULL,
        store_transaction_id TEXT NOT NULL,
        product_id TEXT NOT NULL,
        purchased_at_ms INTEGER NOT NULL,
        expires_at_ms INTEGER,
        revoked_at_ms INTEGER,
        revocation_reason TEXT,
        offer_type TEXT,
        environment TEXT NOT NULL,
        payload_sha256 TEXT,
        signed_at_ms INTEGER,
        recorded_at_ms INTEGER NOT NULL,
        UNIQUE (store, store_transaction_id)
      );
      CREATE INDEX transactions_subscription ON transactions(subscription_id);

      -- Computed entitlement state: what the service indexes. One row per (user, entitlement, source).
      CREATE TABLE entitlements (
        user_id TEXT NOT NULL,
        entitlement TEXT NOT NULL,
        source TEXT NOT NULL,
        store TEXT NOT NULL,
        product_id TEXT NOT NULL,
        environment TEXT NOT NULL,
        state TEXT NOT NULL,
        will_renew INTEGER NOT NULL,
        expires_at_ms INTEGER NOT NULL,
        access_ends_at_ms INTEGER NOT NULL,
        verified_at_ms INTEGER NOT NULL,
        PRIMARY KEY (user_id, entitlement, source)
      ) WITHOUT ROWID;

      -- Submitted purchases and store notifications, durable before they are acknowledged.
      CREATE TABLE inbox (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('purchase', 'notification')),
        store TEXT NOT NULL,
        user_id TEXT,
        app_id TEXT,
        product_id TEXT,
        payload BLOB NOT NULL,
        dedupe_key TEXT UNIQUE,
        received_at_ms INTEGER NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending'
          CHECK (status IN ('pending', 'processing', 'verified', 'rejected', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at_ms INTEGER NOT NULL,
        outcome TEXT,
        completed_at_ms INTEGER
      );
      CREATE INDEX inbox_due ON inbox(status, next_attempt_at_ms);

      -- Append-only: every write that changes what a user is entitled to appends here in the same
      -- transaction; services follow it to refresh their in-memory index.
      CREATE TABLE change_feed (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id TEXT NOT NULL,
        reason TEXT NOT NULL,
        at_ms INTEGER NOT NULL
      );
      """)
  }

  static let v2: Migrator.Body = { db in
    try db.execute(
      """
      ALTER TABLE inbox ADD COLUMN lease_until_ms INTEGER;
      ALTER TABLE inbox ADD COLUMN last_error TEXT;

      -- What the worker knows of each purchase chain: the verified history (JSON, Core's
      -- SubscriptionHistory), the evidence behind it, the last evaluation, and when to look again.
      ALTER TABLE subscriptions ADD COLUMN history_json TEXT;
      ALTER TABLE subscriptions ADD COLUMN evidence_json TEXT;
      ALTER TABLE subscriptions ADD COLUMN reason TEXT;
      ALTER TABLE subscriptions ADD COLUMN app_account_token TEXT;
      ALTER TABLE subscriptions ADD COLUMN next_check_at_ms INTEGER;
      ALTER TABLE subscriptions ADD COLUMN failures INTEGER NOT NULL DEFAULT 0;
      CREATE INDEX subscriptions_due ON subscriptions(next_check_at_ms);
      CREATE INDEX subscriptions_token ON subscriptions(app_account_token);

      -- Promotional grants by an operator.
      CREATE TABLE grants (
        id INTEGER PRIMARY KEY,
        user_id TEXT NOT NULL,
        entitlement TEXT NOT NULL,
        granted_at_ms INTEGER NOT NULL,
        expires_at_ms INTEGER NOT NULL,
        revoked_at_ms INTEGER,
        note TEXT
      );
      CREATE INDEX grants_user ON grants(user_id);

      -- Outbound events: one row per state change, for webhooks and audit.
      CREATE TABLE events (
        id INTEGER PRIMARY KEY,
        user_id TEXT,
        kind TEXT NOT NULL,
        store TEXT NOT NULL,
        store_subscription_id TEXT NOT NULL,
        product_id TEXT,
        state TEXT,
        at_ms INTEGER NOT NULL,
        detail TEXT
      );
      CREATE INDEX events_user ON events(user_id);
      """)
  }

  static let v3: Migrator.Body = { db in
    try db.execute(
      """
      -- How far each webhook endpoint has acknowledged the events table (at-least-once, in order).
      CREATE TABLE webhook_cursors (
        endpoint TEXT PRIMARY KEY NOT NULL,
        last_event_id INTEGER NOT NULL,
        updated_at_ms INTEGER NOT NULL
      );
      """)
  }

  static let v4: Migrator.Body = { db in
    try db.execute(
      """
      -- The product catalog the worker runs with (Core's TollgateConfig as JSON), saved at its
      -- start, so the admin commands recompute entitlements with the same one. One row.
      CREATE TABLE catalog (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        catalog_json TEXT NOT NULL,
        saved_at_ms INTEGER NOT NULL
      );
      """)
  }

  static let v5: Migrator.Body = { db in
    try db.execute(
      """
      -- Which database this is: written once when it is created (or first upgraded), copied along by
      -- a backup. A service that finds another id behind its feed reloads. One row.
      CREATE TABLE database_meta (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        database_id TEXT NOT NULL,
        created_at_ms INTEGER NOT NULL
      );
      """)
    try db.execute(
      """
      INSERT INTO database_meta (id, database_id, created_at_ms)
      VALUES (1, lower(hex(randomblob(16))), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
      """)
  }

  static let v6: Migrator.Body = { db in
    try db.execute(
      """
      -- The one worker running on this database: who, and when its heartbeat was last written
      -- (wall-clock ms). Another worker refuses to start while the heartbeat is fresh. One row.
      CREATE TABLE worker_lease (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        owner_id TEXT NOT NULL,
        host TEXT NOT NULL,
        pid INTEGER NOT NULL,
        process_scope TEXT NOT NULL,
        acquired_at_ms INTEGER NOT NULL,
        heartbeat_at_ms INTEGER NOT NULL
      );
      """)
  }

  static let v7: Migrator.Body = { db in
    // The lifecycle rule behind each record's state (`current_period`, `store_unreachable`, ...),
    // so GetSubscription can say why; '' for grants and for records written before.
    try db.execute("ALTER TABLE entitlements ADD COLUMN reason TEXT NOT NULL DEFAULT ''")
  }

  static let v8: Migrator.Body = { db in
    // The purchases a record's purchase replaced, newest first, separated by spaces (Google Play's
    // linkedPurchaseToken chain; purchase tokens hold no spaces), so GetSubscription can show it;
    // '' for every other record and for records written before.
    try db.execute("ALTER TABLE entitlements ADD COLUMN replaces TEXT NOT NULL DEFAULT ''")
  }

  static let v9: Migrator.Body = { db in
    // The store's own id of a purchase's buyer (the Amazon user id that owns a receipt): needed to
    // read the purchase again, and to find the user a notification's buyer is bound to.
    try db.execute(
      """
      ALTER TABLE subscriptions ADD COLUMN store_user_id TEXT;
      CREATE INDEX subscriptions_by_store_user ON subscriptions (store, store_user_id) WHERE store_user_id IS NOT NULL;
      """)
  }

  static let v10: Migrator.Body = { db in
    // SubmitPurchase counts a user's submissions waiting for verification before storing another
    // (a bound per user, issue 17): only the unfinished ones are indexed.
    try db.execute(
      """
      CREATE INDEX inbox_pending_by_user ON inbox (user_id)
      WHERE kind = 'purchase' AND status IN ('pending', 'processing');
      """)
  }

  static let v11: Migrator.Body = { db in
    // The worker lease's fencing token: counts every take of the lease, so that a worker that lost
    // it (paused past its heartbeat, then resumed) finds (owner_id, generation) changed inside each
    // write's transaction and writes nothing (issue 24).
    try db.execute("ALTER TABLE worker_lease ADD COLUMN generation INTEGER NOT NULL DEFAULT 0")
  }

  static let webhookParking: Migrator.Body = { db in
    // Webhook delivery gives up on an event after a limit (issue 24): the failed attempts at the
    // event after each endpoint's cursor, and the events set aside (parked) so the stream could move
    // on, kept until they are delivered again ('queued': `tollgate webhooks redeliver` asked).
    try db.execute(
      """
      ALTER TABLE webhook_cursors ADD COLUMN failing_event_id INTEGER;
      ALTER TABLE webhook_cursors ADD COLUMN failed_attempts INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE webhook_cursors ADD COLUMN first_failed_at_ms INTEGER;
      CREATE TABLE webhook_parked (
        endpoint TEXT NOT NULL,
        event_id INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('parked', 'queued')),
        attempts INTEGER NOT NULL,
        first_failed_at_ms INTEGER,
        parked_at_ms INTEGER NOT NULL,
        next_attempt_at_ms INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        PRIMARY KEY (endpoint, event_id)
      ) WITHOUT ROWID;
      CREATE INDEX webhook_parked_event ON webhook_parked (event_id);
      """)
  }

  static let eventDetails: Migrator.Body = { db in
    // Webhook payloads of version 2 (issue 24): each event's UUID (the same on every redelivery,
    // never reused, not even by a fresh database; given to the events written before, too) and its
    // details as JSON (environment, transaction, period type, price, product change, reason, grant,
    // the entitlements it touched).
    try db.execute(
      """
      ALTER TABLE events ADD COLUMN event_uuid TEXT;
      ALTER TABLE events ADD COLUMN details_json TEXT;
      UPDATE events SET event_uuid = lower(
        hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-'
          || substr('89ab', 1 + (random() & 3), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))
      WHERE event_uuid IS NULL;
      CREATE UNIQUE INDEX events_uuid ON events (event_uuid);
      """)
  }

  static let inboxSubmissionCaller: Migrator.Body = { db in
    // SubmitPurchase counts pending submissions per (caller, user), signed ones apart (issue 25):
    // one caller's bogus submissions for a user no longer hold back another caller's, nor a signed
    // one. The caller ('' on a server without callers) and whether the submission carried a signed
    // store payload, as columns; the pending purchases stored before get their caller from their
    // payload (and count as unsigned). The per-user index gives way to one per (caller, user, kind).
    try db.execute(
      """
      ALTER TABLE inbox ADD COLUMN caller TEXT NOT NULL DEFAULT '';
      ALTER TABLE inbox ADD COLUMN signed INTEGER NOT NULL DEFAULT 0;
      UPDATE inbox SET caller = COALESCE(json_extract(CAST(payload AS TEXT), '$.caller'), '')
      WHERE kind = 'purchase' AND status IN ('pending', 'processing') AND json_valid(CAST(payload AS TEXT));
      DROP INDEX IF EXISTS inbox_pending_by_user;
      CREATE INDEX inbox_pending_by_caller ON inbox (caller, user_id, signed)
      WHERE kind = 'purchase' AND status IN ('pending', 'processing');
      """)
  }

  static let inboxClaimToken: Migrator.Body = { db in
    // Inbox claims are fenced (issue 26): each claim writes a new token, and retrying or finishing
    // an item (or an apply that completes it) is conditional on it. 0: not claimed.
    try db.execute("ALTER TABLE inbox ADD COLUMN claim_token INTEGER NOT NULL DEFAULT 0")
  }
}
