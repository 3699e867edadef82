import PostgresNIO
import TollgateCore
import TollgateWorker

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension PostgresWorkerStorage {
  // MARK: Catalog

  /// Keeps the worker's product catalog (one row), so the admin commands recompute with it.
  public func saveCatalog(_ catalog: ProductCatalog, nowMs: Int64) async throws {
    let json = String(decoding: try JSONEncoder().encode(catalog), as: UTF8.self)
    try await fencedTransaction { connection in
      _ = try await connection.query(
        """
        INSERT INTO catalog (id, catalog_json, saved_at_ms) VALUES (1, \(json), \(nowMs))
        ON CONFLICT (id) DO UPDATE SET catalog_json = excluded.catalog_json, saved_at_ms = excluded.saved_at_ms
        """, logger: logger)
    }
  }

  public func savedCatalog() async throws -> ProductCatalog? {
    guard let row = try await database.query("SELECT catalog_json FROM catalog WHERE id = 1").first else { return nil }
    let json = try row.decode(String.self)
    return try JSONDecoder().decode(ProductCatalog.self, from: Data(json.utf8))
  }
}
