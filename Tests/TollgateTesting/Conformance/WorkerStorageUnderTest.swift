import TollgateCore
import TollgateStorage
import TollgateWorker

/// A `WorkerStorage` implementation put to the conformance suite (`WorkerStorageConformance`):
/// how to open a fresh database of it, and what else the suite may do with that database. Each
/// implementation's test target builds one (the fake in `TollgateWorkerTests`, SQLite in
/// `TollgateWorkerSQLiteTests`, PostgreSQL next) and runs every case against it.
public struct WorkerStorageUnderTest: Sendable {
  /// The implementation's name, for failure messages.
  public var name: String
  /// Opens a fresh, empty database.
  public var open: @Sendable () async throws -> ConformanceDatabase

  public init(name: String, open: @escaping @Sendable () async throws -> ConformanceDatabase) {
    self.name = name
    self.open = open
  }

  /// Runs `body` on a fresh database, closing it afterwards (also when `body` throws).
  public func withDatabase<T: Sendable>(_ body: (ConformanceDatabase) async throws -> T) async throws -> T {
    let database = try await open()
    do {
      let result = try await body(database)
      await database.close()
      return result
    } catch {
      await database.close()
      throw error
    }
  }
}

/// One fresh database of a storage under test.
public struct ConformanceDatabase: Sendable {
  /// The first handle on the database (what one worker process holds).
  public var storage: any WorkerStorage
  /// Opens another handle on the SAME database: what a second worker process sees (for SQLite a
  /// second `SQLiteWorkerStorage` on the same path; for an in-memory fake, the same instance).
  public var openHandle: @Sendable () async throws -> any WorkerStorage
  /// Opens the service's view of the same database (`EntitlementStorage`: the change feed, the
  /// records, submissions); nil when the implementation has none (the fake keeps no feed).
  public var openFeed: (@Sendable () async throws -> any EntitlementStorage)?
  /// Makes the stored row of the subscription `(store, purchaseId)` undecodable, as a newer
  /// version or a hand edit could leave it; nil when the implementation cannot hold such a row
  /// (the fake stores values, not encodings).
  public var corruptSubscription: (@Sendable (_ store: Store, _ purchaseId: String) async throws -> Void)?
  /// The columns (`table.column`) of every table of the database, listed from its own catalog,
  /// that hold `text` in some row (text, JSON and byte columns are searched): what a GDPR erase
  /// must leave empty (`eraseLeavesNothingOfTheUser`), a table a later migration adds included.
  /// Nil when the implementation has no tables (the fake).
  public var columnsHolding: (@Sendable (_ text: String) async throws -> [String])?
  /// Closes the database and removes what it left behind (every handle it opened, too: a
  /// server database's pools are closed and awaited).
  public var close: @Sendable () async -> Void

  public init(
    storage: any WorkerStorage, openHandle: @escaping @Sendable () async throws -> any WorkerStorage,
    openFeed: (@Sendable () async throws -> any EntitlementStorage)? = nil,
    corruptSubscription: (@Sendable (_ store: Store, _ purchaseId: String) async throws -> Void)? = nil,
    columnsHolding: (@Sendable (_ text: String) async throws -> [String])? = nil,
    close: @escaping @Sendable () async -> Void = {}
  ) {
    self.storage = storage
    self.openHandle = openHandle
    self.openFeed = openFeed
    self.corruptSubscription = corruptSubscription
    self.columnsHolding = columnsHolding
    self.close = close
  }

  /// `openHandle` `count` times: the handles of as many worker processes.
  public func handles(_ count: Int) async throws -> [any WorkerStorage] {
    var handles: [any WorkerStorage] = []
    for _ in 0..<count { handles.append(try await openHandle()) }
    return handles
  }
}
