import Testing
import TollgateCore
import TollgateSQLite
import TollgateStorage
import TollgateTesting
import TollgateWorker
import TollgateWorkerSQLite

/// The storage conformance suite (`WorkerStorageConformance`) against SQLite: each handle is its
/// own `SQLiteWorkerStorage` (its own connection) on one database file, as separate worker
/// processes would hold, and the feed is read through `SQLiteEntitlementStorage`, as `serve` does.
@Suite("Storage conformance: SQLite")
struct SQLiteStorageConformanceTests {
  static let sqlite = WorkerStorageUnderTest(name: "SQLite") {
    let directory = try TemporaryDirectory()
    let path = directory.file("db.sqlite")
    return ConformanceDatabase(
      storage: try SQLiteWorkerStorage(path: path, nowMs: 1),
      openHandle: { try SQLiteWorkerStorage(path: path, nowMs: 1) },
      openFeed: { try SQLiteEntitlementStorage(path: path, nowMs: 1) },
      corruptSubscription: { store, purchaseId in
        // What another version (or a hand edit) could leave: a history this version cannot read.
        let editor = try Connection(path: path)
        try editor.execute(
          "UPDATE subscriptions SET history_json = '{\"unknown\": 1}' WHERE store = ? AND store_subscription_id = ?",
          [.text(store.rawValue), .text(purchaseId)])
        #expect(editor.changes == 1, "the subscription to corrupt is stored")
      },
      columnsHolding: { text in try SQLiteColumnSearch.columns(holding: text, path: path) },
      close: { directory.remove() })
  }

  // MARK: Inbox

  @Test func deduplicatesNotifications() async throws {
    try await WorkerStorageConformance.deduplicatesNotifications(Self.sqlite)
  }

  @Test func claimExpiry() async throws { try await WorkerStorageConformance.claimExpiry(Self.sqlite) }

  @Test func concurrentClaimsHandEachItemOnce() async throws {
    try await WorkerStorageConformance.concurrentClaimsHandEachItemOnce(Self.sqlite)
  }

  @Test func oldestUnfinishedInboxItem() async throws {
    try await WorkerStorageConformance.oldestUnfinishedInboxItem(Self.sqlite)
  }

  // MARK: Atomicity

  @Test func applyIsSeenWholeFromAnotherHandle() async throws {
    try await WorkerStorageConformance.applyIsSeenWholeFromAnotherHandle(Self.sqlite)
  }

  @Test func failedApplyWritesNothing() async throws {
    try await WorkerStorageConformance.failedApplyWritesNothing(Self.sqlite)
  }

  // MARK: Order

  @Test func eventOrderUnderConcurrentWriters() async throws {
    try await WorkerStorageConformance.eventOrderUnderConcurrentWriters(Self.sqlite)
  }

  @Test func feedOrderUnderConcurrentWriters() async throws {
    try await WorkerStorageConformance.feedOrderUnderConcurrentWriters(Self.sqlite)
  }

  // MARK: Prune

  @Test func pruneKeepsWhatIsUnread() async throws {
    try await WorkerStorageConformance.pruneKeepsWhatIsUnread(Self.sqlite)
  }

  @Test func pruneNeverReusesEventIds() async throws {
    try await WorkerStorageConformance.pruneNeverReusesEventIds(Self.sqlite)
  }

  // MARK: Undecodable rows

  @Test func undecodableRowsNeverReadAsMissing() async throws {
    try await WorkerStorageConformance.undecodableRowsNeverReadAsMissing(Self.sqlite)
  }

  // MARK: Versions

  @Test func versionsCountWrites() async throws {
    try await WorkerStorageConformance.versionsCountWrites(Self.sqlite)
  }

  @Test func olderReadNeverOverwritesNewerWrite() async throws {
    try await WorkerStorageConformance.olderReadNeverOverwritesNewerWrite(Self.sqlite)
  }

  @Test func concurrentWritesOfOneReadLandOnce() async throws {
    try await WorkerStorageConformance.concurrentWritesOfOneReadLandOnce(Self.sqlite)
  }

  @Test func twoChainsOfOneUserWrittenAtOnce() async throws {
    try await WorkerStorageConformance.twoChainsOfOneUserWrittenAtOnce(Self.sqlite)
  }

  // MARK: Due checks

  @Test func renewedCheckClaimIsNotTakenOver() async throws {
    try await WorkerStorageConformance.renewedCheckClaimIsNotTakenOver(Self.sqlite)
  }

  @Test func claimedCheckIsDueToNobodyElse() async throws {
    try await WorkerStorageConformance.claimedCheckIsDueToNobodyElse(Self.sqlite)
  }

  @Test func applyEndsTheCheckClaim() async throws {
    try await WorkerStorageConformance.applyEndsTheCheckClaim(Self.sqlite)
  }

  @Test func concurrentClaimsHandEachCheckOnce() async throws {
    try await WorkerStorageConformance.concurrentClaimsHandEachCheckOnce(Self.sqlite)
  }

  @Test func undecodableDueCheckIsPutOff() async throws {
    try await WorkerStorageConformance.undecodableDueCheckIsPutOff(Self.sqlite)
  }
}
