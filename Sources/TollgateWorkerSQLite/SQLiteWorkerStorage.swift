import Logging
import Synchronization
import TollgateCore
import TollgateSQLite
import TollgateStorage
import TollgateWorker

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// `WorkerStorage` on the SQLite database the service reads: the inbox, subscriptions with their
/// verified histories, grants, events and the catalog. Every verification lands in one transaction together with the
/// recomputed entitlements, the change feed and the inbox item it completes.
public final class SQLiteWorkerStorage: WorkerStorage {
  public let path: String
  let writer: SerializedConnection
  let logger: Logger
  /// The worker lease this storage took (`takeWorkerLease`), which every worker write checks
  /// inside its transaction; nil until then (the admin commands never take it).
  let fence = Mutex<LeaseFence?>(nil)

  /// The worker's page cache, 32 MiB (SQLite's default is 2): every notification claims, reads and
  /// rewrites rows written a moment before (the inbox item with its body, the subscription, its
  /// history), which with 2 MiB were read back from the file (`pread`) once a few hundred were in
  /// flight.
  static let cacheKiB = 32 << 10

  /// Opens the database at `path` and applies pending migrations. It creates the database only
  /// with `create` (`tollgate worker --create`, tests, the demo); without it (`tollgate worker`,
  /// the admin commands) a mistyped path is an error (`DatabaseFileError`, its message ending
  /// with `hint`) rather than a new, empty database that `serve` would then answer "not
  /// entitled" from. Every commit is fsynced (`.full`) unless `synchronous` says otherwise
  /// (benchmarks only).
  public init(
    path: String, nowMs: Int64, create: Bool = true, synchronous: Connection.Synchronous = .full,
    hint: String? = nil, logger: Logger = Logger(label: "tollgate.worker.storage")
  ) throws {
    self.path = path
    self.logger = logger
    let options = Connection.Options(create: create, synchronous: synchronous, cacheKiB: Self.cacheKiB)
    let label = "tollgate.sqlite.worker"
    self.writer =
      if let hint {
        try TollgateDatabase.open(path: path, options: options, label: label, nowMs: nowMs, hint: hint)
      } else {
        try TollgateDatabase.open(path: path, options: options, label: label, nowMs: nowMs)
      }
  }

  // MARK: Catalog

  public func saveCatalog(_ catalog: ProductCatalog, nowMs: Int64) async throws {
    let json = String(decoding: try JSONEncoder().encode(catalog), as: UTF8.self)
    try await fencedWrite { db in
      try db.execute(
        """
        INSERT INTO catalog (id, catalog_json, saved_at_ms) VALUES (1, ?, ?)
        ON CONFLICT(id) DO UPDATE SET catalog_json = excluded.catalog_json, saved_at_ms = excluded.saved_at_ms
        """, [.text(json), .integer(nowMs)])
    }
  }

  public func savedCatalog() async throws -> ProductCatalog? {
    let json = try await writer.read { db in
      try db.prepare("SELECT catalog_json FROM catalog WHERE id = 1").rows([]) { $0.string(at: 0) }.first
    }
    return try json.map { try JSONDecoder().decode(ProductCatalog.self, from: Data($0.utf8)) }
  }
}
