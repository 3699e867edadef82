import Logging
import TollgateCore
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

  /// Opens the database at `path` and applies pending migrations. The worker owns the schema and
  /// may create the database (`create`); the admin commands pass `create: false`, so a mistyped
  /// path is an error (`DatabaseFileError`) rather than a new, empty database. Every commit is
  /// fsynced (`.full`) unless `synchronous` says otherwise (benchmarks only).
  public init(
    path: String, nowMs: Int64, create: Bool = true, synchronous: Connection.Synchronous = .full,
    logger: Logger = Logger(label: "tollgate.worker.storage")
  ) throws {
    self.path = path
    self.logger = logger
    self.writer = try TollgateDatabase.open(
      path: path, options: Connection.Options(create: create, synchronous: synchronous),
      label: "tollgate.sqlite.worker", nowMs: nowMs)
  }

  // MARK: Catalog

  public func saveCatalog(_ catalog: ProductCatalog, nowMs: Int64) async throws {
    let json = String(decoding: try JSONEncoder().encode(catalog), as: UTF8.self)
    try await writer.write { db in
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
