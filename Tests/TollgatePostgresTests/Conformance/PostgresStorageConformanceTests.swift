import Logging
import PostgresNIO
import Synchronization
import Testing
import TollgateCore
import TollgatePostgres
import TollgateStorage
import TollgateTesting
import TollgateWorker
import TollgateWorkerPostgres

/// The storage conformance suite (`WorkerStorageConformance`) against PostgreSQL: each handle is
/// its own `PostgresWorkerStorage` on its own pool (`PostgresTollgateDatabase.connect`) on one
/// fresh database of the test server, as separate worker processes hold, and the feed is read
/// through `PostgresEntitlementStorage` on a pool of its own, as a `serve` replica does. The
/// same cases as SQLite's runner, none disabled.
@Suite("Storage conformance: PostgreSQL")
struct PostgresStorageConformanceTests {
  static let postgres = WorkerStorageUnderTest(name: "PostgreSQL") {
    let location = try await TestPostgres.freshDatabase()
    let pools = Pools()
    let logger = Logger(label: "tollgate.conformance.postgres")
    @Sendable func connect(create: Bool) async throws -> PostgresTollgateDatabase {
      let database = try await PostgresTollgateDatabase.connect(
        location, environment: [:], nowMs: 1, create: create, maximumConnections: 4, logger: logger)
      pools.add(database)
      return database
    }
    return ConformanceDatabase(
      storage: PostgresWorkerStorage(database: try await connect(create: true), logger: logger),
      openHandle: { PostgresWorkerStorage(database: try await connect(create: false), logger: logger) },
      openFeed: { PostgresEntitlementStorage(database: try await connect(create: false), logger: logger) },
      corruptSubscription: { store, purchaseId in
        // What another version (or a hand edit) could leave: a history this version cannot read.
        let rows = try await pools.first.query(
          """
          UPDATE subscriptions SET history_json = '{"unknown": 1}'
          WHERE store = \(store.rawValue) AND store_subscription_id = \(purchaseId) RETURNING id
          """)
        #expect(rows.count == 1, "the subscription to corrupt is stored")
      },
      columnsHolding: { text in try await PostgresColumnSearch.columns(holding: text, in: pools.first) },
      close: { await pools.closeAll() })
  }

  /// Every pool a test's database opened, closed and awaited at its end.
  final class Pools: Sendable {
    private let opened = Mutex<[PostgresTollgateDatabase]>([])

    func add(_ database: PostgresTollgateDatabase) { opened.withLock { $0.append(database) } }

    var first: PostgresTollgateDatabase { opened.withLock { $0[0] } }

    func closeAll() async {
      for database in opened.withLock({ $0 }) {
        database.close()
        await database.closed()
      }
    }
  }

  // MARK: Inbox

  @Test func deduplicatesNotifications() async throws {
    try await WorkerStorageConformance.deduplicatesNotifications(Self.postgres)
  }

  @Test func claimExpiry() async throws { try await WorkerStorageConformance.claimExpiry(Self.postgres) }

  @Test func concurrentClaimsHandEachItemOnce() async throws {
    try await WorkerStorageConformance.concurrentClaimsHandEachItemOnce(Self.postgres)
  }

  @Test func oldestUnfinishedInboxItem() async throws {
    try await WorkerStorageConformance.oldestUnfinishedInboxItem(Self.postgres)
  }

  // MARK: Atomicity

  @Test func applyIsSeenWholeFromAnotherHandle() async throws {
    try await WorkerStorageConformance.applyIsSeenWholeFromAnotherHandle(Self.postgres)
  }

  @Test func failedApplyWritesNothing() async throws {
    try await WorkerStorageConformance.failedApplyWritesNothing(Self.postgres)
  }

  // MARK: Order

  @Test func eventOrderUnderConcurrentWriters() async throws {
    try await WorkerStorageConformance.eventOrderUnderConcurrentWriters(Self.postgres)
  }

  @Test func feedOrderUnderConcurrentWriters() async throws {
    try await WorkerStorageConformance.feedOrderUnderConcurrentWriters(Self.postgres)
  }

  // MARK: Prune

  @Test func pruneKeepsWhatIsUnread() async throws {
    try await WorkerStorageConformance.pruneKeepsWhatIsUnread(Self.postgres)
  }

  @Test func pruneNeverReusesEventIds() async throws {
    try await WorkerStorageConformance.pruneNeverReusesEventIds(Self.postgres)
  }

  // MARK: Undecodable rows

  @Test func undecodableRowsNeverReadAsMissing() async throws {
    try await WorkerStorageConformance.undecodableRowsNeverReadAsMissing(Self.postgres)
  }

  // MARK: Versions

  @Test func versionsCountWrites() async throws {
    try await WorkerStorageConformance.versionsCountWrites(Self.postgres)
  }

  @Test func olderReadNeverOverwritesNewerWrite() async throws {
    try await WorkerStorageConformance.olderReadNeverOverwritesNewerWrite(Self.postgres)
  }

  @Test func concurrentWritesOfOneReadLandOnce() async throws {
    try await WorkerStorageConformance.concurrentWritesOfOneReadLandOnce(Self.postgres)
  }

  @Test func twoChainsOfOneUserWrittenAtOnce() async throws {
    try await WorkerStorageConformance.twoChainsOfOneUserWrittenAtOnce(Self.postgres)
  }

  // MARK: Due checks

  @Test func renewedCheckClaimIsNotTakenOver() async throws {
    try await WorkerStorageConformance.renewedCheckClaimIsNotTakenOver(Self.postgres)
  }

  @Test func claimedCheckIsDueToNobodyElse() async throws {
    try await WorkerStorageConformance.claimedCheckIsDueToNobodyElse(Self.postgres)
  }

  @Test func applyEndsTheCheckClaim() async throws {
    try await WorkerStorageConformance.applyEndsTheCheckClaim(Self.postgres)
  }

  @Test func concurrentClaimsHandEachCheckOnce() async throws {
    try await WorkerStorageConformance.concurrentClaimsHandEachCheckOnce(Self.postgres)
  }

  @Test func undecodableDueCheckIsPutOff() async throws {
    try await WorkerStorageConformance.undecodableDueCheckIsPutOff(Self.postgres)
  }
}
