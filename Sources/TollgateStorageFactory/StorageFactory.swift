import Logging
import TollgatePostgres
import TollgateSQLite
import TollgateStorage
import TollgateWorker
import TollgateWorkerPostgres
import TollgateWorkerSQLite

/// How commits reach the disk. Tollgate runs `.full`; `.normal` is for benchmarks only. On
/// PostgreSQL the server's own settings decide (`synchronous_commit`): `.normal` changes nothing.
public enum StorageDurability: String, Sendable, CaseIterable {
  /// Every commit is on disk before it returns: an acknowledged write survives power loss.
  case full
  /// Commits reach the disk later (SQLite: at checkpoints); a power loss can undo the last ones.
  case normal
}

/// The one place that turns a `StorageLocation` into storages: every command and `LocalStack`
/// open theirs here, so nothing else names a database's types.
///
/// Each call opens storage of its own: on SQLite a connection to the file, on PostgreSQL a pool
/// of `connections` connections (`PostgresTollgateDatabase`) that the storage owns. Whoever opens
/// a storage calls its `close()` when done with it (`EntitlementStorage.close()`,
/// `WorkerStorage.close()`): PostgreSQL closes the pool and waits for it; SQLite needs nothing.
///
/// On PostgreSQL the server is reached first (`PostgresTollgateDatabase.reach`): one that is down
/// or refuses the user is an error within `PostgresTollgateDatabase.reachTimeout` that names the
/// database (its URL without a password) and says why, never a wait on the pool's retries.
extension StorageLocation {
  /// The service's storage (`tollgate serve`, `seed`, `bench visibility`). Without `create`, a
  /// location with no Tollgate database is an error naming it (SQLite: `no database at PATH`).
  /// `environment` is the process's: it holds the PostgreSQL password (`PostgresPassword`).
  ///
  /// With `waitForServer` (`serve`), a database server that cannot be reached now (down, starting,
  /// full: `PostgresUnreachable.transient`) is no error: the storage returned opens itself on the
  /// first call that finds the server up, and every call before fails saying why. A server that
  /// answers no (a wrong password, no such database, a newer schema) is an error either way.
  public func entitlementStorage(
    nowMs: Int64, create: Bool, connections: Int = StorageConnections.service, waitForServer: Bool = false,
    environment: [String: String], logger: Logger
  ) async throws -> any EntitlementStorage {
    switch self {
    case .sqlite(let path):
      return try SQLiteEntitlementStorage(path: path, nowMs: nowMs, create: create, logger: logger)
    case .postgres(let location):
      let open: @Sendable () async throws -> any EntitlementStorage = {
        let database = try await Self.connect(
          location, nowMs: nowMs, create: create, connections: connections, environment: environment, logger: logger)
        // Submissions and the waits on their verdicts never take the change feed's connections.
        return PostgresEntitlementStorage(
          database: database, otherCallsAtOnce: max(1, connections - PostgresEntitlementStorage.feedConnections),
          logger: logger)
      }
      do {
        return try await open()
      } catch let error as PostgresUnreachable where waitForServer && error.transient {
        logger.error(
          "the database server cannot be reached: serving UNAVAILABLE until it can",
          metadata: ["database": "\(location)", "error": "\(error.reason)"])
        return ReconnectingEntitlementStorage(failure: error, open: open)
      }
    }
  }

  /// Whether the storage is a database server, which may be down while a process starts (and
  /// come back): `serve` then waits for it (`waitForServer`) instead of exiting.
  public var isServer: Bool {
    switch self {
    case .sqlite: false
    case .postgres: true
    }
  }

  /// The worker's storage (`tollgate worker`, the admin and `webhooks` commands, `bench inbox`).
  /// Without `create`, a location with no Tollgate database is an error naming it, its message
  /// ending with `hint` when given (SQLite; PostgreSQL's says to pass `--create`). `durability`
  /// is SQLite's; PostgreSQL ignores it. `connections` sizes a PostgreSQL pool
  /// (`StorageConnections.worker(_:)` for a running worker).
  public func workerStorage(
    nowMs: Int64, create: Bool, durability: StorageDurability = .full, hint: String? = nil,
    connections: Int = StorageConnections.tool, environment: [String: String], logger: Logger
  ) async throws -> any WorkerStorage {
    switch self {
    case .sqlite(let path):
      return try SQLiteWorkerStorage(
        path: path, nowMs: nowMs, create: create, synchronous: durability.sqlite, hint: hint, logger: logger)
    case .postgres(let location):
      let database = try await Self.connect(
        location, nowMs: nowMs, create: create, connections: connections, environment: environment, logger: logger)
      return PostgresWorkerStorage(database: database, logger: logger)
    }
  }

  /// Files of this storage that users other than its owner may read or write (issue 25 item 7):
  /// an SQLite database and its `-wal` and `-shm`; nothing for PostgreSQL (no file of ours).
  public var exposedFiles: [ExposedStorageFile] {
    switch self {
    case .sqlite(let path):
      ExposedFile.ofDatabase(path).map { ExposedStorageFile(path: $0.path, octalMode: $0.octalMode) }
    case .postgres:
      []
    }
  }

  /// Reaches the server (a clear error at once when it cannot), then opens the pool and checks
  /// (with `create`, makes) the schema.
  private static func connect(
    _ location: PostgresLocation, nowMs: Int64, create: Bool, connections: Int, environment: [String: String],
    logger: Logger
  ) async throws -> PostgresTollgateDatabase {
    try await PostgresTollgateDatabase.reach(location, environment: environment, logger: logger)
    return try await PostgresTollgateDatabase.connect(
      location, environment: environment, nowMs: nowMs, create: create, maximumConnections: max(1, connections),
      logger: logger)
  }
}

/// How many connections a process's PostgreSQL pool holds, by what it runs. SQLite ignores them.
public enum StorageConnections {
  /// `serve`: the change feed's listener, catch-up and fallback look
  /// (`PostgresEntitlementStorage.feedConnections`, kept free of the rest), submissions and the
  /// waits on their verdicts.
  public static let service = 8
  /// A command that runs once (admin, `webhooks`, `seed`, `bench`): a few statements at a time.
  public static let tool = 2

  /// A worker: a connection per store call in flight that may end in a write (two per
  /// `storeConcurrency` permit), one per webhook endpoint's deliverer, and four for the loop's
  /// claims, the notification intake, leases and store health.
  public static func worker(_ configuration: WorkerConfiguration) -> Int {
    2 * max(1, configuration.worker.storeConcurrency) + configuration.webhooks.count + 4
  }
}

/// A file of the storage that others can read or write: its path and its mode (`0644`).
public struct ExposedStorageFile: Sendable, Hashable {
  public var path: String
  public var octalMode: String

  public init(path: String, octalMode: String) {
    self.path = path
    self.octalMode = octalMode
  }
}

extension StorageDurability {
  fileprivate var sqlite: Connection.Synchronous {
    switch self {
    case .full: .full
    case .normal: .normal
    }
  }
}
