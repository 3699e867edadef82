import Dispatch

/// A `Connection` confined to its own serial dispatch queue, so that SQLite calls (and their
/// fsyncs) never run on an event loop or on the cooperative thread pool.
public final class SerializedConnection: @unchecked Sendable {
  // @unchecked Sendable: `connection` is only ever touched from `queue`, a serial queue, so no two
  // threads use it at once; every entry point below goes through `queue`.
  private let connection: Connection
  private let queue: DispatchQueue
  /// The file as it was opened: every write first checks that the path still names it.
  public let file: DatabaseFile

  public init(path: String, options: Connection.Options = Connection.Options(), label: String = "tollgate.sqlite")
    throws(DatabaseError)
  {
    self.connection = try Connection(path: path, options: options)
    self.file = DatabaseFile(path: path)
    self.queue = DispatchQueue(label: label)
  }

  /// Runs `body` on the connection's queue, outside any transaction.
  public func read<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      queue.async {
        continuation.resume(with: Result { try body(self.connection) })
      }
    }
  }

  /// Runs `body` on the connection's queue inside `BEGIN IMMEDIATE … COMMIT`. Throws a
  /// `DatabaseFileError` instead when the path no longer names the opened file (deleted or
  /// replaced), or its `-wal`/`-shm` files are gone or others: a write there would be
  /// acknowledged and then lost. The `-wal` file is looked at again after the commit, so a write
  /// that landed in a deleted log is not acknowledged either.
  public func write<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
    try await read { connection in
      if let problem = self.file.problem() { throw problem }
      let result = try connection.transaction(body)
      if let problem = self.file.problemAfterCommit() { throw problem }
      return result
    }
  }

  /// Runs `body` on the connection's queue and waits for it: for start-up and tools only.
  public func readSync<T>(_ body: (Connection) throws -> T) throws -> T {
    try queue.sync { try body(connection) }
  }
}
