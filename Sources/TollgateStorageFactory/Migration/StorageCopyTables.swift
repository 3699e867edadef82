/// One table `tollgate migrate-storage` copies: its name (the same on SQLite and PostgreSQL) and
/// its primary key, by which its rows are read in batches (keyset pagination: each batch starts
/// after the last key of the one before, so no batch rereads or skips a row of the snapshot).
struct CopiedTable: Sendable, Hashable {
  var name: String
  var key: [String]

  init(_ name: String, key: [String]) {
    self.name = name
    self.key = key
  }

  /// A single integer key: an id the database hands out (SQLite's rowid, a PostgreSQL identity),
  /// whose sequence the copy moves past the highest id copied.
  var hasIdKey: Bool { key.count == 1 && ["id", "seq"].contains(key[0]) }
}

/// Every table of Tollgate's schema, in an order where a table comes after those its foreign keys
/// reference (subscriptions after users, transactions after subscriptions). A table a later
/// migration adds and this list lacks is still copied (after these, keyed by its primary key);
/// one with a foreign key must be added here, after the table it references.
enum StorageCopyTables {
  static let all: [CopiedTable] = [
    CopiedTable("database_meta", key: ["id"]),
    CopiedTable("users", key: ["user_id"]),
    CopiedTable("subscriptions", key: ["id"]),
    CopiedTable("transactions", key: ["id"]),
    CopiedTable("entitlements", key: ["user_id", "entitlement", "source"]),
    CopiedTable("inbox", key: ["id"]),
    CopiedTable("change_feed", key: ["seq"]),
    CopiedTable("grants", key: ["id"]),
    CopiedTable("events", key: ["id"]),
    CopiedTable("webhook_cursors", key: ["endpoint"]),
    CopiedTable("webhook_parked", key: ["endpoint", "event_id"]),
    CopiedTable("catalog", key: ["id"]),
    CopiedTable("worker_lease", key: ["id"]),
    CopiedTable("job_leases", key: ["name"]),
    CopiedTable("store_health", key: ["store"]),
    CopiedTable("store_call_budgets", key: ["store"]),
    CopiedTable("feed_readers", key: ["reader_id"]),
  ]

  /// The one table a freshly created schema already fills (its id and creation time): replaced by
  /// the source's row, so the copy keeps the source's database id.
  static let meta = "database_meta"

  /// Tables that are the schema's own bookkeeping, not data: each database keeps its own.
  static func isBookkeeping(_ name: String) -> Bool {
    name == "tollgate_migrations" || name.hasPrefix("sqlite_")
  }

  /// `name` as an SQL identifier. Names come from this list and the databases' catalogs; anything
  /// but lowercase letters, digits and `_` is refused rather than quoted.
  static func quoted(_ name: String) throws(StorageMigrationError) -> String {
    let allowed = name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
    guard allowed, !name.isEmpty else { throw .unexpectedName(String(name.prefix(64))) }
    return "\"\(name)\""
  }
}
