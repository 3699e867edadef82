import Logging
import PostgresNIO
import Testing
import TollgateCore
import TollgatePostgres
import TollgateTesting

/// Migration v21-support on PostgreSQL (issue 28), SQLite's `SupportMigrationTests` twin: the
/// backfill of `transactions.order_id` on a database written before it gives what the write path
/// writes from then on (`GooglePlayOrderId.base(ofStoredTransactionId:)`, Google Play only).
@Suite("PostgreSQL migration v21-support")
struct PostgresSupportMigrationTests {
  static let logger = Logger(label: "test")

  /// Stored transaction ids in every form the gateways write, near misses, and what PostgreSQL
  /// could read otherwise than SQLite (a second `|`, non-ASCII bytes, `_` that a `LIKE` matches).
  static let samples: [(store: String, id: String)] = [
    ("google_play", "GPA.3372-2936-4337-51089"), ("google_play", "GPA.3372-2936-4337-51089..0"),
    ("google_play", "GPA.3372-2936-4337-51089..12"), ("google_play", "GPA.1200-3400-5600-78901|p.monthly"),
    ("google_play", "GPA.1200-3400-5600-78901..3|p.yearly"), ("google_play", "GPA.1200-3400-5600-78902..4|p|x"),
    ("google_play", "GPA.Çé-1..7|p.ü"), ("google_play", "tok-abc|p.monthly"),
    ("google_play", "gpa.3372-2936-4337-51089"),
    ("google_play", "GPA_3372-2936-4337-51089"), ("app_store", "GPA.3372-2936-4337-51089"),
    ("app_store", "2000000123"), ("amazon", "amzn-r1#trial"),
  ]

  @Test("the backfill gives each stored transaction the order id the write path gives it")
  func backfillMatchesTheHelper() async throws {
    let location = try await TestPostgres.freshDatabase()
    try await PostgresTollgateDatabase.open(location, environment: [:], nowMs: 1, create: true, logger: Self.logger) {
      db in
      // Back to the schema before v21-support, as a database written by the previous version
      // (dropping order_id drops its index transactions_order).
      for statement in [
        "DROP INDEX events_purchase", "DROP INDEX events_claims", "DROP INDEX inbox_user",
        "DROP INDEX change_feed_erased", "ALTER TABLE transactions DROP COLUMN order_id",
        "ALTER TABLE subscriptions DROP COLUMN erased_at_ms",
        "DELETE FROM tollgate_migrations WHERE identifier = 'v21-support'",
        """
        INSERT INTO subscriptions (id, store, store_subscription_id, app_id, product_id, environment, state,
          verified_at_ms, updated_at_ms) VALUES (1, 'google_play', 'tok', 'app', 'p', 'sandbox', 'active', 1, 1)
        """,
      ] {
        _ = try await db.query(PostgresQuery(unsafeSQL: statement))
      }
      for (n, sample) in Self.samples.enumerated() {
        _ = try await db.query(
          """
          INSERT INTO transactions (id, subscription_id, store, store_transaction_id, product_id, purchased_at_ms,
            environment, recorded_at_ms) VALUES (\(Int64(n + 1)), 1, \(sample.store), \(sample.id), 'p', 1, 'sandbox', 1)
          """)
      }
    }
    // Opened again, the database applies the one step it lacks.
    let stored = try await PostgresTollgateDatabase.open(
      location, environment: [:], nowMs: 2, create: false, logger: Self.logger
    ) { db in
      let steps = try await db.query("SELECT identifier FROM tollgate_migrations WHERE applied_at_ms = 2")
      #expect(try steps.map { try $0.decode(String.self) } == ["v21-support"])
      return try await db.query("SELECT order_id FROM transactions ORDER BY id").map {
        try $0.decode(String?.self)
      }
    }
    let expected = Self.samples.map { sample in
      sample.store == "google_play" ? GooglePlayOrderId.base(ofStoredTransactionId: sample.id) : nil
    }
    #expect(stored == expected)
    #expect(stored.compactMap { $0 }.count == 7, "the seven Google Play order ids")
  }
}
