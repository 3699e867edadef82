import Logging
import PostgresNIO
import Synchronization
import TollgateCore
import TollgatePostgres
import TollgateStorage
import TollgateWorker

/// `WorkerStorage` on a PostgreSQL database the service replicas read: the inbox, subscriptions
/// with their verified histories, grants, events, leases and the catalog. Several workers (in
/// several processes, on several hosts) share one database; the rules that keep them from doing
/// one piece of work twice or losing one are in the transactions of each topic's file
/// (`PostgresWorkerStorage+<Topic>.swift`) and in docs/storage-writers.md.
public final class PostgresWorkerStorage: Sendable {
  public let database: PostgresTollgateDatabase
  let logger: Logger
  /// The worker lease this storage took (`takeWorkerLease`), which every worker write checks
  /// inside its transaction (`fencedTransaction`); nil until then (the admin commands never take
  /// it, nor does a worker with `worker.exclusive: false`).
  let fence = Mutex<LeaseFence?>(nil)

  public init(database: PostgresTollgateDatabase, logger: Logger = Logger(label: "tollgate.worker.storage")) {
    self.database = database
    self.logger = logger
  }

  /// Closes the pool this storage owns (the factory connected it for this storage alone) and
  /// waits for it to stop.
  public func close() async {
    database.close()
    await database.closed()
  }

  /// Runs `body` in one transaction that first checks, when this storage holds the worker lease,
  /// that it still does (the row's owner and generation), and throws `WorkerLeaseError.lost`
  /// writing nothing when another worker took it over. Every worker write goes through here.
  ///
  /// A write that appends to the change feed or the events (`apply`, grants) passes
  /// `appendsToFeeds`: the transaction then takes the change-feed lock and then the events lock
  /// (`PostgresLocks`) as its very first statements, before the fence and before any row lock,
  /// so that sequence numbers and event ids become visible in commit order, every such writer
  /// takes them in one order (no deadlock), and the recompute of a user is serialised with every
  /// other write of that user's subscriptions and grants.
  @discardableResult
  func fencedTransaction<T: Sendable>(
    appendsToFeeds: Bool = false, _ body: (PostgresSession) async throws -> T
  ) async throws -> T {
    let fence = self.fence.withLock { $0 }
    return try await database.transaction { connection in
      if appendsToFeeds {
        try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresLocks.changeFeed))", logger: logger)
        try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresLocks.events))", logger: logger)
      }
      if let fence { try await Self.checkFence(fence, connection, logger: logger) }
      return try await body(connection)
    }
  }
}

/// The worker lease this storage holds: what `fencedTransaction` checks.
struct LeaseFence: Sendable {
  var ownerId: String
  var generation: Int64
}
