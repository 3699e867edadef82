extension Schema {
  static let storeCallBudgets: Migrator.Body = { db in
    // Store-call budgets shared through the database (issue 27): how many calls to each store the
    // workers on the database have taken in the current window, so that a store's request quota
    // holds for the deployment, not per worker. One row per store.
    try db.execute(
      """
      CREATE TABLE store_call_budgets (
        store TEXT PRIMARY KEY,
        window_start_ms INTEGER NOT NULL,
        used INTEGER NOT NULL
      ) WITHOUT ROWID;
      """)
  }
}
