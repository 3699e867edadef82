import Logging
import PostgresNIO
import Synchronization
import TollgateCore
import TollgatePostgres
import TollgateStorage
import TollgateTesting

/// A fresh database on the test server for each test, and entitlement storages on it, each on a
/// pool of its own (as a `serve` replica or a worker in another process would be).
enum PostgresEntitlements {
  static let logger = Logger(label: "test.postgres.entitlements")

  /// `count` storages on one fresh database, closed after `body` (also when it throws).
  static func withStorages<T: Sendable>(
    _ hint: String = #function, count: Int = 1, fallbackInterval: Duration = .seconds(1),
    _ body: (PostgresLocation, [PostgresEntitlementStorage]) async throws -> T
  ) async throws -> T {
    let location = try await TestPostgres.freshDatabase(hint)
    var storages: [PostgresEntitlementStorage] = []
    do {
      for _ in 0..<count {
        let database = try await PostgresTollgateDatabase.connect(
          location, environment: [:], nowMs: 1, create: true, maximumConnections: 4, logger: logger)
        storages.append(
          PostgresEntitlementStorage(database: database, fallbackInterval: fallbackInterval, logger: logger))
      }
      let result = try await body(location, storages)
      for storage in storages { await storage.close() }
      return result
    } catch {
      for storage in storages { await storage.close() }
      throw error
    }
  }

  /// Rows of one statement, run on `storage`'s pool (tests' own SQL).
  static func rows(_ storage: PostgresEntitlementStorage, _ query: PostgresQuery) async throws -> [PostgresRow] {
    try await storage.database.query(query)
  }

  /// Ends every connection of the test database that listens for change notifications; how many.
  @discardableResult
  static func killListeners(_ storage: PostgresEntitlementStorage) async throws -> Int {
    let name = PostgresEntitlementStorage.listenerApplicationName
    return try await storage.database.query(
      """
      SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE application_name = \(name) AND datname = current_database()
      """
    ).count
  }

  /// How many connections of the test database listen for change notifications now.
  static func listeners(_ storage: PostgresEntitlementStorage) async throws -> Int64 {
    let name = PostgresEntitlementStorage.listenerApplicationName
    let rows = try await storage.database.query(
      """
      SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = \(name) AND datname = current_database()
      """)
    return try rows.first?.decode(Int64.self) ?? 0
  }
}

/// A counter tasks share (a follower's signals, a writer's progress).
final class TaskCounter: Sendable {
  private let value = Atomic<Int>(0)
  var count: Int { value.load(ordering: .acquiring) }
  func add(_ delta: Int = 1) { value.add(delta, ordering: .releasing) }
}

extension PostgresEntitlements {
  /// Waits (up to 20 s: the full suite shares two cores) until `count` connections listen.
  static func waitForListeners(_ storage: PostgresEntitlementStorage, _ count: Int64) async throws -> Bool {
    try await eventually(timeout: .seconds(20)) { try await listeners(storage) == count } != nil
  }
}
