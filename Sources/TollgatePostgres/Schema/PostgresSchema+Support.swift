import PostgresNIO

extension PostgresSchema {
  /// SQLite's v21-support (issue 28): Google Play base order ids on transactions (backfilled as
  /// `GooglePlayOrderId.base(ofStoredTransactionId:)` computes them), the indexes the support
  /// lookups, the timeline and the GDPR erase read through, and `subscriptions.erased_at_ms`.
  /// The `GPA.` test compares bytes (`substr`), not a collation-dependent `LIKE`.
  static let support: [PostgresQuery] = [
    sql("ALTER TABLE transactions ADD COLUMN order_id TEXT"),
    sql(
      """
      UPDATE transactions SET order_id = split_part(split_part(store_transaction_id, '|', 1), '..', 1)
      WHERE store = 'google_play' AND substr(store_transaction_id, 1, 4) = 'GPA.'
      """),
    sql("CREATE INDEX transactions_order ON transactions (store, order_id) WHERE order_id IS NOT NULL"),
    sql("CREATE INDEX events_purchase ON events (store, store_subscription_id)"),
    sql(
      """
      CREATE INDEX events_claims ON events (id)
      WHERE kind IN ('transferred', 'transfer_refused', 'claim_refused')
      """),
    sql("CREATE INDEX inbox_user ON inbox (user_id) WHERE user_id IS NOT NULL"),
    sql("CREATE INDEX change_feed_erased ON change_feed (seq) WHERE reason = 'erased'"),
    sql("ALTER TABLE subscriptions ADD COLUMN erased_at_ms BIGINT"),
  ]
}
