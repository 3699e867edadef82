import Foundation
import Logging
import PostgresNIO
import TollgateCore
import TollgatePostgres
import TollgateSQLite
import TollgateStorage
import TollgateStorageFactory
import TollgateTesting
import TollgateWorker

/// A database filled through the real storage APIs (the worker's and the service's), and every
/// table of a database read back row by row with each database's own reader (not the copier's).
enum StorageMigrationFixtures {
  static let nowMs: Int64 = 1_700_000_000_000
  static let logger = Logger(label: "tollgate.test.migrate")
  static var environment: [String: String] { ProcessInfo.processInfo.environment }

  /// Rows of every table (the migrations' own record aside), by table: each row a column → value
  /// map, so that column order (ALTER TABLE on SQLite, CREATE TABLE on PostgreSQL) does not matter.
  typealias Dump = [String: Set<[String: DatabaseValue]>]

  /// Fills `location` with a few users' subscriptions (all three stores), transactions,
  /// entitlements, events, inbox items (one claimed), a grant and a revoked one, entitlements
  /// written by the service (the change feed), webhook cursors and a parked event, the catalog,
  /// store health, a store-call budget, a job lease and the worker lease: a row in every table.
  static func populate(_ location: StorageLocation, users: Int = 6, base: Int = 0) async throws {
    let worker = try await location.workerStorage(nowMs: nowMs, create: true, environment: environment, logger: logger)
    let service = try await location.entitlementStorage(
      nowMs: nowMs, create: true, environment: environment, logger: logger)
    do {
      let stores: [Store] = [.appStore, .googlePlay, .amazon]
      for index in base..<(base + users) {
        let subscription = WorkerStorageConformance.subscription(
          "chain-\(index)", user: "user-\(index)", expiresAtMs: nowMs + Int64(index) * 60_000,
          store: stores[index % 3], verifiedAtMs: nowMs)
        _ = try await worker.apply(
          WorkerStorageConformance.change(
            subscription, events: [WorkerStorageConformance.event("subscribed", of: subscription, atMs: nowMs)],
            nowMs: nowMs),
          recompute: WorkerStorageConformance.recompute)
        // A payload that is no text: bytes must come back as they went in.
        _ = try await worker.storeNotification(
          route: "apple", dedupeKey: "notification-\(index)",
          payload: Array("{\"n\":\(index)}".utf8) + [0, 0xFF, 0x80],
          nowMs: nowMs + Int64(index))
      }
      _ = try await worker.claimInbox(nowMs: nowMs, limit: 2, leaseMs: 60_000)
      _ = try await worker.addGrant(
        userId: "user-\(base + 1)", entitlement: "premium", expiresAtMs: nowMs + 86_400_000, note: "thanks",
        actor: "ops", nowMs: nowMs, recompute: WorkerStorageConformance.recompute)
      _ = try await worker.addGrant(
        userId: "user-\(base + 2)", entitlement: "pro", expiresAtMs: nowMs + 86_400_000, note: nil, actor: nil,
        nowMs: nowMs, recompute: WorkerStorageConformance.recompute)
      _ = try await worker.revokeGrants(
        userId: "user-\(base + 2)", entitlement: "pro", note: "oops", actor: "ops", nowMs: nowMs + 1,
        recompute: WorkerStorageConformance.recompute)
      _ = try await service.replaceEntitlements(
        batch: [
          (userId: "seeded-\(base)", records: [EntitlementRecord.sample(userId: "seeded-\(base)", expiresAtMs: nowMs)])
        ], reason: "seed", nowMs: nowMs)
      try await service.recordFeedPosition(readerId: "replica-\(base)", seq: 1, nowMs: nowMs)
      let events = try await worker.events(after: 0, limit: 100)
      _ = try await worker.webhookCursor(endpoint: "https://hooks.example/a", nowMs: nowMs)
      _ = try await worker.webhookCursor(endpoint: "https://hooks.example/b", nowMs: nowMs)
      if events.count >= 3 {
        try await worker.advanceWebhookCursor(endpoint: "https://hooks.example/b", to: events[0].id, nowMs: nowMs)
        _ = try await worker.recordWebhookFailure(
          endpoint: "https://hooks.example/b", eventId: events[1].id, error: "HTTP 503",
          limit: WebhookRetryLimit(maxAttempts: 1, maxAgeMs: 1), nowMs: nowMs, lease: nil)
      }
      try await worker.saveCatalog(
        ProductCatalog(entitlements: [EntitlementDefinition(id: "premium")]), nowMs: nowMs)
      try await worker.recordStoreFailure(.googlePlay, atMs: nowMs)
      _ = try await worker.reserveStoreCalls(.amazon, windowStartMs: nowMs, wanted: 3, limit: 10)
      _ = try await worker.takeJobLease(name: "sweep.googlePlay", ownerId: "worker-a", nowMs: nowMs, ttlMs: 60_000)
      _ = try await worker.takeWorkerLease(
        WorkerLeaseHolder(
          ownerId: "worker-a", host: "host-a", pid: 42, processScope: "", acquiredAtMs: nowMs, heartbeatAtMs: nowMs),
        replacing: nil)
    } catch {
      await worker.close()
      await service.close()
      throw error
    }
    await worker.close()
    await service.close()
  }

  /// Every table of the SQLite file at `path`, read with SQLite's own statements.
  static func dumpSQLite(_ path: String) throws -> Dump {
    let db = try Connection(path: path, options: Connection.Options(create: false))
    let tables = try db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").rows { $0.string(at: 0) }
    var dump: Dump = [:]
    for table in tables where table != "tollgate_migrations" {
      let statement = try db.prepare("SELECT * FROM \"\(table)\"")
      let rows = try statement.rows { row in
        Dictionary(uniqueKeysWithValues: (0..<row.columnCount).map { (row.columnName(at: $0), row.value(at: $0)) })
      }
      dump[table] = Set(rows)
    }
    return dump
  }

  /// Every table of the PostgreSQL database at `location`, each cell as SQLite would store it.
  static func dumpPostgres(_ location: PostgresLocation) async throws -> Dump {
    try await PostgresTollgateDatabase.open(
      location, environment: environment, nowMs: nowMs, create: false, maximumConnections: 1, logger: logger
    ) { database in
      var dump: Dump = [:]
      let tables = try await database.query(
        """
        SELECT table_name::text FROM information_schema.tables
        WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
        """
      ).map { try $0.decode(String.self) }
      for table in tables where table != "tollgate_migrations" {
        var rows: Set<[String: DatabaseValue]> = []
        for row in try await database.query(PostgresQuery(unsafeSQL: "SELECT * FROM \"\(table)\"")) {
          var values: [String: DatabaseValue] = [:]
          for cell in row { values[cell.columnName] = try value(cell) }
          rows.insert(values)
        }
        dump[table] = rows
      }
      return dump
    }
  }

  private static func value(_ cell: PostgresCell) throws -> DatabaseValue {
    guard cell.bytes != nil else { return .null }
    switch cell.dataType {
    case .int8: return .integer(try cell.decode(Int64.self))
    case .text: return .text(try cell.decode(String.self))
    case .bytea: return .blob(Array(try cell.decode(ByteBuffer.self).readableBytesView))
    default: throw UnexpectedType(type: "\(cell.dataType)", column: cell.columnName)
    }
  }

  struct UnexpectedType: Error { var type: String, column: String }

  /// The rows of one table in `dump` (empty when it has none).
  static func rows(_ dump: Dump, _ table: String) -> Set<[String: DatabaseValue]> { dump[table] ?? [] }

  /// The highest integer in `column` across `table`'s rows.
  static func highest(_ dump: Dump, _ table: String, _ column: String) -> Int64 {
    rows(dump, table).compactMap { row -> Int64? in
      if case .integer(let value)? = row[column] { return value }
      return nil
    }.max() ?? 0
  }
}
