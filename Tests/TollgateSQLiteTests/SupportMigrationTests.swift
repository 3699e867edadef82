import Testing
import TollgateCore
import TollgateSQLite
import TollgateTesting

/// Migration v21-support (issue 28): the backfill of `transactions.order_id` on a database written
/// before it gives what the write path writes from then on (`GooglePlayOrderId.base(ofStoredTransactionId:)`,
/// Google Play only).
@Suite("Migration v21-support")
struct SupportMigrationTests {
  /// Stored transaction ids in every form the gateways write, and near misses.
  static let samples: [(store: String, id: String)] = [
    ("google_play", "GPA.3372-2936-4337-51089"), ("google_play", "GPA.3372-2936-4337-51089..0"),
    ("google_play", "GPA.3372-2936-4337-51089..12"), ("google_play", "GPA.1200-3400-5600-78901|p.monthly"),
    ("google_play", "GPA.1200-3400-5600-78901..3|p.yearly"), ("google_play", "tok-abc|p.monthly"),
    ("google_play", "gpa.3372-2936-4337-51089"), ("app_store", "GPA.3372-2936-4337-51089"),
    ("app_store", "2000000123"), ("amazon", "amzn-r1#trial"),
  ]

  @Test("the backfill gives each stored transaction the order id the write path gives it")
  func backfillMatchesTheHelper() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let db = try Connection(path: dir.file("db.sqlite"))
    try Schema.migrator.migrate(db, nowMs: 1)
    // Back to the schema before v21-support, as a database written by the previous version.
    try db.execute(
      """
      DROP INDEX transactions_order; DROP INDEX events_purchase; DROP INDEX events_claims; DROP INDEX inbox_user;
      DROP INDEX change_feed_erased;
      ALTER TABLE transactions DROP COLUMN order_id; ALTER TABLE subscriptions DROP COLUMN erased_at_ms;
      DELETE FROM tollgate_migrations WHERE identifier = 'v21-support';
      INSERT INTO subscriptions (id, store, store_subscription_id, app_id, product_id, environment, state,
        verified_at_ms, updated_at_ms) VALUES (1, 'google_play', 'tok', 'app', 'p', 'sandbox', 'active', 1, 1);
      """)
    for (n, sample) in Self.samples.enumerated() {
      try db.execute(
        """
        INSERT INTO transactions (id, subscription_id, store, store_transaction_id, product_id, purchased_at_ms,
          environment, recorded_at_ms) VALUES (?, 1, ?, ?, 'p', 1, 'sandbox', 1)
        """, [.integer(Int64(n + 1)), .text(sample.store), .text(sample.id)])
    }
    #expect(try Schema.migrator.migrate(db, nowMs: 2) == ["v21-support"])
    let stored = try db.prepare("SELECT order_id FROM transactions ORDER BY id").rows([]) { $0.optionalString(at: 0) }
    let expected = Self.samples.map { sample in
      sample.store == "google_play" ? GooglePlayOrderId.base(ofStoredTransactionId: sample.id) : nil
    }
    #expect(stored == expected)
    #expect(stored.compactMap { $0 }.count == 5, "the five Google Play order ids")
  }
}
