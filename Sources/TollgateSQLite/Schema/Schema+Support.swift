extension Schema {
  /// v21-support (issue 28): what the support API reads and the GDPR erase writes.
  static let support: Migrator.Body = { db in
    try db.execute(
      """
      -- Google Play's order id without its renewal suffix or line-item split, so a support
      -- engineer's GPA.… finds the first order and every renewal; NULL for every other store and
      -- for a transaction stored without one (GooglePlayOrderId.base(ofStoredTransactionId:)).
      ALTER TABLE transactions ADD COLUMN order_id TEXT;
      UPDATE transactions SET order_id = CASE WHEN instr(store_transaction_id, '|') > 0
          THEN substr(store_transaction_id, 1, instr(store_transaction_id, '|') - 1) ELSE store_transaction_id END
       WHERE store = 'google_play' AND substr(store_transaction_id, 1, 4) = 'GPA.';
      UPDATE transactions SET order_id = substr(order_id, 1, instr(order_id, '..') - 1)
       WHERE order_id IS NOT NULL AND instr(order_id, '..') > 0;
      CREATE INDEX transactions_order ON transactions (store, order_id) WHERE order_id IS NOT NULL;
      -- Every event of a chain whoever owned it (the timeline, explain, the erase).
      CREATE INDEX events_purchase ON events (store, store_subscription_id);
      -- The claim and transfer events, whose detail may name another user (the erase's scrub).
      CREATE INDEX events_claims ON events (id)
       WHERE kind IN ('transferred', 'transfer_refused', 'claim_refused');
      -- A user's submissions of every status (the erase, explain's rejected submissions).
      CREATE INDEX inbox_user ON inbox (user_id) WHERE user_id IS NOT NULL;
      -- A GDPR erase's change-feed entries, through which housekeeping deletes the feed's prefix.
      CREATE INDEX change_feed_erased ON change_feed (seq) WHERE reason = 'erased';
      -- Set by a GDPR erase that unbound the chain; cleared when a claim with fresh proof binds it.
      ALTER TABLE subscriptions ADD COLUMN erased_at_ms INTEGER;
      """)
  }
}
