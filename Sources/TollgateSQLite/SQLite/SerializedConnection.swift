import Dispatch
import Synchronization

/// A `Connection` confined to its own serial dispatch queue, so that SQLite calls (and their
/// fsyncs) never run on an event loop or on the cooperative thread pool.
///
/// Writes are **group-committed**: writes that arrive while the queue is busy (another write's
/// fsync, a read) wait together and then run in one transaction, each inside its own savepoint,
/// and share that transaction's one commit (`SerializedConnection+GroupCommit.swift`). Each write
/// still lands whole or not at all, in the order the writes were made, and returns only once its
/// commit is on disk: what a write returns is durable, as with one transaction per write.
public final class SerializedConnection: @unchecked Sendable {
  // @unchecked Sendable: `connection` is only ever touched from `queue`, a serial queue, so no two
  // threads use it at once; every entry point below goes through `queue`. `waiting` is a Mutex.
  let connection: Connection
  let queue: DispatchQueue
  /// The file as it was opened: every write first checks that the path still names it.
  public let file: DatabaseFile
  /// Writes made and not yet taken into a transaction, and whether a drain of them is on `queue`.
  let waiting = Mutex(WaitingWrites())
  /// Transactions committed by `write`, and writes in them: `writes / commits` is the grouping.
  let committed = Atomic<UInt64>(0)
  let committedWrites = Atomic<UInt64>(0)

  /// The most writes one transaction takes; the rest wait for the next one.
  public static let groupLimit = 64

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

  /// Runs `body` on the connection's queue inside a `BEGIN IMMEDIATE … COMMIT` transaction, which
  /// it may share with other writes made meanwhile (each in its own savepoint: a `body` that
  /// throws undoes only its own changes, and its error is this call's). Returns once the commit
  /// is on disk. Throws a `DatabaseFileError` instead when the path no longer names the opened
  /// file (deleted or replaced), or its `-wal`/`-shm` files are gone or others: a write there
  /// would be acknowledged and then lost. The `-wal` file is looked at again after the commit, so
  /// a write that landed in a deleted log is not acknowledged either.
  public func write<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
      enqueue(
        PendingWrite(
          run: { connection in
            do {
              let value = try body(connection)
              return .success({ error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: value) }
              })
            } catch {
              return .failure(error)
            }
          },
          fail: { continuation.resume(throwing: $0) }))
    }
  }

  /// Transactions `write` committed and the writes they held, since the connection opened.
  public var commits: (transactions: UInt64, writes: UInt64) {
    (committed.load(ordering: .relaxed), committedWrites.load(ordering: .relaxed))
  }

  /// Writes made and not yet in a transaction (they wait for the queue).
  public var waitingWrites: Int { waiting.withLock { $0.writes.count } }

  /// Runs `body` on the connection's queue and waits for it: for start-up and tools only.
  public func readSync<T>(_ body: (Connection) throws -> T) throws -> T {
    try queue.sync { try body(connection) }
  }
}
