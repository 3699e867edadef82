import Logging
import TollgateSQLite
import TollgateStorage
import TollgateWorker
import TollgateWorkerSQLite

/// How commits reach the disk. Tollgate runs `.full`; `.normal` is for benchmarks only.
public enum StorageDurability: String, Sendable, CaseIterable {
  /// Every commit is on disk before it returns: an acknowledged write survives power loss.
  case full
  /// Commits reach the disk later (SQLite: at checkpoints); a power loss can undo the last ones.
  case normal
}

/// The one place that turns a `StorageLocation` into storages: every command and `LocalStack`
/// open theirs here, so nothing else names a database's types. PostgreSQL adds its case here.
extension StorageLocation {
  /// The service's storage (`tollgate serve`, `seed`, `bench visibility`). Without `create`, a
  /// location with no Tollgate database is an error naming it (SQLite: `no database at PATH`).
  public func entitlementStorage(nowMs: Int64, create: Bool, logger: Logger) throws -> any EntitlementStorage {
    switch self {
    case .sqlite(let path):
      try SQLiteEntitlementStorage(path: path, nowMs: nowMs, create: create, logger: logger)
    }
  }

  /// The worker's storage (`tollgate worker`, the admin and `webhooks` commands, `bench inbox`).
  /// Without `create`, a location with no Tollgate database is an error naming it, its message
  /// ending with `hint` when given.
  public func workerStorage(
    nowMs: Int64, create: Bool, durability: StorageDurability = .full, hint: String? = nil, logger: Logger
  ) throws -> any WorkerStorage {
    switch self {
    case .sqlite(let path):
      try SQLiteWorkerStorage(
        path: path, nowMs: nowMs, create: create, synchronous: durability.sqlite, hint: hint, logger: logger)
    }
  }

  /// Files of this storage that users other than its owner may read or write (issue 25 item 7):
  /// an SQLite database and its `-wal` and `-shm`; nothing for a storage that is no file.
  public var exposedFiles: [ExposedStorageFile] {
    switch self {
    case .sqlite(let path):
      ExposedFile.ofDatabase(path).map { ExposedStorageFile(path: $0.path, octalMode: $0.octalMode) }
    }
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
