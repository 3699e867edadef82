import TollgateCore
import TollgateStorage

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension SQLiteEntitlementStorage {
  /// The `accessLevels` of the catalog row the worker saves at its start (only that member is
  /// read out of the JSON, by SQLite): small enough to read at every poll of the change feed.
  public func savedAccessLevels() async throws -> AccessLevelPolicy? {
    let saved = try await reader.read { db -> String?? in
      let statement = try db.prepare("SELECT json_extract(catalog_json, '$.accessLevels') FROM catalog WHERE id = 1")
      try statement.bind([])
      guard try statement.step() else { return .none }
      return .some(statement.optionalString(at: 0))
    }
    guard let saved else { return nil }
    guard let json = saved else { return .defaults }
    return try JSONDecoder().decode(AccessLevelPolicy.self, from: Data(json.utf8))
  }
}
