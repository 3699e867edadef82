/// Whether anything was committed to an SQLite file since the last look: `PRAGMA data_version`
/// on a connection of its own, which changes whenever another connection (of this process or
/// another) commits. One prepared statement, no parsing per look, no thread hop: a few
/// microseconds. Not thread-safe: one thread uses it (`SQLiteEntitlementStorage.changeSignals`).
public final class SQLiteChangeProbe {
  private let connection: Connection
  private let statement: Statement
  private var lastVersion: Int64?

  public init(path: String) throws(DatabaseError) {
    connection = try Connection(path: path, options: Connection.Options(create: false))
    statement = try connection.prepare("PRAGMA data_version")
  }

  /// True when something may have been committed since the previous call (and on the first
  /// call). A false answer is certain: nothing was committed in between.
  public func mayHaveChanged() throws -> Bool {
    // Reset at once: a statement left on its row keeps a read transaction open, which would pin
    // the WAL and stop checkpoints from ever restarting it.
    defer { statement.reset() }
    try statement.bind([])
    guard try statement.step() else { return true }
    let version = statement.int64(at: 0)
    defer { lastVersion = version }
    return version != lastVersion
  }
}

@available(*, unavailable)
extension SQLiteChangeProbe: Sendable {}
