import PostgresNIO

/// Tollgate's schema on PostgreSQL: the same named steps as SQLite's `Schema`, in order.
public enum PostgresSchema {
  public static let migrations: [PostgresMigration] = []
}
