import TollgateStorage

/// `ChangeProbe` on an SQLite file: `PRAGMA data_version` on a connection of its own, which
/// changes whenever another connection (of this process or another) commits. One prepared
/// statement, no parsing per test, no thread hop: a few microseconds.
public final class SQLiteChangeProbe: ChangeProbe {
  private let connection: Connection
  private let statement: Statement
  private var lastVersion: Int64?

  public init(path: String) throws(DatabaseError) {
    connection = try Connection(path: path, options: Connection.Options(create: false))
    statement = try connection.prepare("PRAGMA data_version")
  }

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
